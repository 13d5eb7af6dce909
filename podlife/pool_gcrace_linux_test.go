package podlife_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/internal/poddir"
)

// A pod taken from a warm pool whose first record cannot be written (a full disk; here a
// directory in the way of pod.json's temporary file) fails its start, and its process removes
// what the member made: containers, namespaces, network. Until that removal is over, its
// directory under pods/ has no record, and another process's startup garbage collection would
// take it for a crash's leftover and delete it (and the member's containers, namespaces and IP)
// under the removal's feet. The pods' lock stays held (shared) until then: the collection, which
// takes it exclusively, cannot run meanwhile. The removal is held at its CNI DEL (the test
// holds the network's state lock) so that the lock is looked at while it is under way.
func TestWarmPoolFailedRecordKeepsPodsLock(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	spec := poolSpec(t.TempDir())
	if err := h.rt.Prewarm(ctx, spec, 1); err != nil {
		t.Fatalf("Prewarm: %v", err)
	}
	defer func() {
		if err := h.rt.Prewarm(ctx, spec, 0); err != nil {
			t.Errorf("Prewarm 0: %v", err)
		}
	}()
	ms, err := h.rt.ListPoolMembers(ctx)
	if err != nil || len(ms) != 1 || !ms[0].Ready {
		t.Fatalf("pool members: %+v, %v; want one ready", ms, err)
	}
	if err := os.Mkdir(filepath.Join(h.stateDir, "pool", ms[0].ID, "pod.json.tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	cniLock, err := os.OpenFile(filepath.Join(h.bridge.StateDir, "cni.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer cniLock.Close()
	if err := syscall.Flock(int(cniLock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	held := true
	releaseCNI := func() {
		if held {
			held = false
			_ = syscall.Flock(int(cniLock.Fd()), syscall.LOCK_UN)
		}
	}
	defer releaseCNI()

	spec.Name = "gcrace-a"
	done := make(chan error, 1)
	go func() {
		_, err := h.rt.Run(ctx, spec)
		done <- err
	}()
	// The record's write failed, and the removal began: it waits at its CNI DEL.
	deadline := time.Now().Add(budget(time.Minute))
	for !strings.Contains(h.logs.String(), "pod failed to start; removing it") {
		if time.Now().After(deadline) {
			t.Fatalf("the start never failed; log:\n%s", h.logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	dir := filepath.Join(h.stateDir, "pods", spec.Name)
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the taken member's directory during its removal: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pod.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("pod.json during the removal: %v, want none (its write failed)", err)
	}
	if unlock, err := poddir.LockPods(h.stateDir, syscall.LOCK_EX|syscall.LOCK_NB); !errors.Is(err, syscall.EWOULDBLOCK) {
		if err == nil {
			unlock()
		}
		t.Errorf("the pods' lock, exclusive, while the taken member's failed start is undone: %v, want EWOULDBLOCK (a startup garbage collection would delete its directory, containers and network under the removal)", err)
	}
	releaseCNI()
	if err := <-done; err == nil || !strings.Contains(err.Error(), "write the pod record") {
		t.Fatalf("Run = %v, want the record's write failure", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the pod's directory after the failed start: %v, want it removed", err)
	}
	unlock, err := poddir.LockPods(h.stateDir, syscall.LOCK_EX|syscall.LOCK_NB)
	if err != nil {
		t.Fatalf("the pods' lock after the failed start's removal: %v, want it free", err)
	}
	unlock()
}
