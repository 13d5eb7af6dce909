package poddir

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A pod directory being created holds the pods' lock shared until its record is written: the
// startup garbage collection (exclusive) cannot take it meanwhile, and can once it is released.
func TestPodDirLockExcludesCollection(t *testing.T) {
	state := t.TempDir()
	dir := filepath.Join(state, "pods", "p")
	release, err := Make(state, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockPods(state, syscall.LOCK_EX|syscall.LOCK_NB); !errors.Is(err, syscall.EWOULDBLOCK) {
		t.Fatalf("exclusive lock while a pod directory is being created: %v, want EWOULDBLOCK", err)
	}
	if _, err := Make(state, dir); !errors.Is(err, os.ErrExist) {
		t.Fatalf("second Make: %v, want ErrExist", err)
	}
	release()
	release() // idempotent
	unlock, err := LockPods(state, syscall.LOCK_EX|syscall.LOCK_NB)
	if err != nil {
		t.Fatalf("exclusive lock after the release: %v", err)
	}
	unlock()
}

// Remove frees the name at once (rename), then deletes everything.
func TestRemovePodDir(t *testing.T) {
	state := t.TempDir()
	dir := filepath.Join(state, "pods", "p")
	if err := os.MkdirAll(filepath.Join(dir, "logs", "c"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pod.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Remove(dir); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(state, "pods"))
	if err != nil || len(entries) != 0 {
		t.Fatalf("left in pods/: %v %v", entries, err)
	}
	if err := Remove(dir); err != nil {
		t.Fatalf("removing a removed directory: %v", err)
	}
}
