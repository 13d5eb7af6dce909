package volumes

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/podlife/podlife/podlife"
)

// TestProjectorFollowsFiles: a node volume without tokens is rewritten when its resolved files
// change (here on a kick, as UpdatePod does; the sync period is an hour), a failed resolution
// does not end the following ones, and the old payload directories are removed.
func TestProjectorFollowsFiles(t *testing.T) {
	var mu sync.Mutex
	data, fail := "v1", false
	resolve := func(context.Context) ([]NodeVolume, error) {
		mu.Lock()
		defer mu.Unlock()
		if fail {
			return nil, errors.New("configmap gone")
		}
		return []NodeVolume{{name: "cfg", files: []podlife.File{{Path: "greeting", Data: []byte(data)}}}}, nil
	}
	dir := t.TempDir()
	pj := NewProjector(fake.NewClientset().CoreV1(), dir, time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil)))
	pj.syncPeriod = time.Hour
	t.Cleanup(pj.Close)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"}}
	vols, _ := resolve(context.Background())
	if err := pj.Project(context.Background(), "p1", pod, vols, resolve); err != nil {
		t.Fatal(err)
	}
	vol := filepath.Join(dir, "p1", "cfg")
	read := func() string { b, _ := os.ReadFile(filepath.Join(vol, "greeting")); return string(b) }
	waitRead := func(want string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for read() != want && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if got := read(); got != want {
			t.Fatalf("greeting = %q, want %q", got, want)
		}
	}
	waitRead("v1")
	mu.Lock()
	data = "v2"
	mu.Unlock()
	pj.KickPod("p1")
	waitRead("v2")

	mu.Lock()
	fail = true
	mu.Unlock()
	pj.KickPod("p1")
	mu.Lock()
	fail, data = false, "v3"
	mu.Unlock()
	pj.KickPod("p1")
	waitRead("v3")
	entries, err := os.ReadDir(vol)
	if err != nil {
		t.Fatal(err)
	}
	var payloads int
	for _, e := range entries {
		if e.IsDir() && e.Name() != dataDirName && e.Name()[:2] == ".." {
			payloads++
		}
	}
	if payloads != 1 {
		t.Errorf("%d payload directories, want the current one only: %v", payloads, entries)
	}
}
