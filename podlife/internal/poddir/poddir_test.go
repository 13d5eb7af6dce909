package poddir

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
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

// Remove holds the pods' lock shared from the rename to the end of the delete: while another
// process's startup garbage collection holds it exclusively, a Remove does not start (the
// directory is still there, under its name), and the collection never sees a live Remove's
// .removing- directory. Once the collection releases the lock, the Remove finishes.
func TestRemoveWaitsForCollection(t *testing.T) {
	state := t.TempDir()
	dir := filepath.Join(state, "pods", "p")
	if err := os.MkdirAll(filepath.Join(dir, "logs", "c"), 0o700); err != nil {
		t.Fatal(err)
	}
	unlock, err := LockPods(state, syscall.LOCK_EX)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- Remove(dir) }()
	select {
	case err := <-done:
		unlock()
		t.Fatalf("Remove returned (%v) while the collection held the pods' lock", err)
	case <-time.After(200 * time.Millisecond):
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the directory was renamed or deleted while the collection held the lock: %v", err)
	}
	unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(state, "pods"))
	if err != nil || len(entries) != 0 {
		t.Fatalf("left in pods/: %v %v", entries, err)
	}
}
