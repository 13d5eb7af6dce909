package main

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestListenLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0", "example.com:0"} {
		if l, err := listenLoopback(addr); err == nil {
			l.Close()
			t.Errorf("listenLoopback(%q) accepted a non-loopback address", addr)
		}
	}
	l, err := listenLoopback("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
}

// The status files follow the status: written, rewritten when changed, removed when their pod
// or file is gone; /status serves the same.
func TestStatusWriter(t *testing.T) {
	dir := t.TempDir()
	w := newStatusWriter(dir, slog.New(slog.DiscardHandler))
	w.write(t.Context(), &agentStatus{
		Files: []fileResult{{File: "a.yaml", Hash: "h1", Pods: []string{"a-n"}}, {File: "b.yaml", Error: "boom"}},
		Pods:  []podReport{{Name: "a-n", File: "a.yaml", Hash: "h1", State: stateManaged}},
	})
	var pod podReport
	if b, err := os.ReadFile(filepath.Join(dir, ".status", "pods", "a-n.json")); err != nil || json.Unmarshal(b, &pod) != nil || pod.State != stateManaged {
		t.Errorf("pod status %s (%v)", b, err)
	}
	var file fileResult
	if b, err := os.ReadFile(filepath.Join(dir, ".status", "files", "b.yaml.json")); err != nil || json.Unmarshal(b, &file) != nil || file.Error != "boom" {
		t.Errorf("file status %s (%v)", b, err)
	}

	w.write(t.Context(), &agentStatus{Files: []fileResult{{File: "b.yaml", Error: "boom"}}})
	for _, gone := range []string{"pods/a-n.json", "files/a.yaml.json"} {
		if _, err := os.Stat(filepath.Join(dir, ".status", gone)); !os.IsNotExist(err) {
			t.Errorf("%s: %v, want removed", gone, err)
		}
	}

	rec := httptest.NewRecorder()
	w.ServeHTTP(rec, httptest.NewRequest("GET", "/status", nil))
	body, _ := io.ReadAll(rec.Body)
	var st agentStatus
	if err := json.Unmarshal(body, &st); err != nil || len(st.Files) != 1 || st.Files[0].Error != "boom" || len(st.Pods) != 0 {
		t.Errorf("/status: %s (%v)", body, err)
	}
}

func TestLockAgentDir(t *testing.T) {
	dir := t.TempDir()
	l, err := lockAgentDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lockAgentDir(dir); !errors.Is(err, errAgentRunning) || !strings.Contains(err.Error(), strconv.Itoa(os.Getpid())) {
		t.Errorf("second lock: %v, want errAgentRunning naming pid %d", err, os.Getpid())
	}
	l.Close()
	l, err = lockAgentDir(dir)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	l.Close()
}
