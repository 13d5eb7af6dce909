package main

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostFile writes a file outside the manifest directory, standing for a file of the host's
// that a symlink under .status points to.
func hostFile(t *testing.T, content string) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, "precious.json")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// checkHost fails the test unless the host directory holds precious.json alone, unchanged.
func checkHost(t *testing.T, dir, content string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	if b, err := os.ReadFile(filepath.Join(dir, "precious.json")); err != nil || string(b) != content || len(entries) != 1 {
		names := []string{}
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("host dir %s: precious.json %q (%v), entries %v: want it alone and untouched", dir, b, err, names)
	}
}

// A symlink under .status makes the agent (root) write or delete nothing outside it: not a
// .status/pods that is a symlink to a host directory (on main, write pruned the host
// directory's files and wrote there), not a symlinked .status (agent.json went there), not a
// status file or a stale entry that is a symlink to a host file.
func TestStatusWriterFollowsNoSymlink(t *testing.T) {
	st := &agentStatus{
		Files: []fileResult{{File: "a.yaml", Hash: "h1", Pods: []string{"a-n"}}},
		Pods:  []podReport{{Name: "a-n", File: "a.yaml", Hash: "h1", State: stateManaged}},
	}
	t.Run("pods dir", func(t *testing.T) {
		dir := t.TempDir()
		host, _ := hostFile(t, "host\n")
		if err := os.MkdirAll(filepath.Join(dir, ".status"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(host, filepath.Join(dir, ".status", "pods")); err != nil {
			t.Fatal(err)
		}
		var logs strings.Builder
		newStatusWriter(dir, slog.New(slog.NewTextHandler(&logs, nil))).write(t.Context(), st)
		checkHost(t, host, "host\n")
		if !strings.Contains(logs.String(), filepath.Join(dir, ".status", "pods")) {
			t.Errorf("log %q: want an error naming .status/pods", logs.String())
		}
	})
	t.Run("status dir", func(t *testing.T) {
		dir := t.TempDir()
		host, _ := hostFile(t, "host\n")
		if err := os.Symlink(host, filepath.Join(dir, ".status")); err != nil {
			t.Fatal(err)
		}
		w := newStatusWriter(dir, slog.New(slog.DiscardHandler))
		if _, err := w.writeAgent(agentInfo{PID: 1}); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, ".status")) {
			t.Errorf("writeAgent through a symlinked .status: %v, want an error naming it", err)
		}
		w.write(t.Context(), st)
		checkHost(t, host, "host\n")
	})
	t.Run("files", func(t *testing.T) {
		dir := t.TempDir()
		host, target := hostFile(t, "host\n")
		pods := filepath.Join(dir, ".status", "pods")
		if err := os.MkdirAll(pods, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"a-n.json", "stale.json", ".a-n.json.tmp"} {
			if err := os.Symlink(target, filepath.Join(pods, name)); err != nil {
				t.Fatal(err)
			}
		}
		newStatusWriter(dir, slog.New(slog.DiscardHandler)).write(t.Context(), st)
		checkHost(t, host, "host\n")
		if fi, err := os.Lstat(filepath.Join(pods, "a-n.json")); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("a-n.json: %v %v, want the status written as a file of its own", fi, err)
		}
		if fi, err := os.Lstat(filepath.Join(pods, "stale.json")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("stale.json: %v %v, want the symlink left alone (only regular files are pruned)", fi, err)
		}
	})
}

// writeAgent's remove func removes agent.json, not what a symlink put in its place points to.
func TestStatusAgentInfoRemove(t *testing.T) {
	dir := t.TempDir()
	host, target := hostFile(t, "host\n")
	remove, err := newStatusWriter(dir, slog.New(slog.DiscardHandler)).writeAgent(agentInfo{PID: 1})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ".status", "agent.json")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	remove()
	checkHost(t, host, "host\n")
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("agent.json: %v, want removed", err)
	}
}
