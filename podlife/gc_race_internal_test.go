package podlife

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/podlife/podlife/podlife/internal/poddir"
	"github.com/podlife/podlife/podlife/internal/specfp"
)

// A pod whose first record cannot be written (a full disk, here a spec key that cannot be
// read) fails its start, and its process removes it: its directory, without a record, is that
// removal's until it is gone. The pods' lock stays held (shared) until then, so that another
// process's startup garbage collection (exclusive) cannot take the directory for the leftover
// of a crash and delete it under the removal's feet (for a pod taken from a warm pool: its live
// containers, namespaces and network). Once the removal is over, the lock is free again.
func TestFakeFailedRecordKeepsPodsLock(t *testing.T) {
	ctx := testCtx(t)
	r, f, _ := newFakeRuntime(t)
	state := r.cfg.StateDir
	if err := os.WriteFile(filepath.Join(state, specfp.KeyFile), []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	f.mu.Lock()
	f.leaseGate = gate
	f.mu.Unlock()
	opened := false
	open := func() {
		if !opened {
			opened = true
			close(gate)
		}
	}
	defer open()
	done := make(chan error, 1)
	go func() {
		_, err := r.Run(ctx, PodSpec{Name: "norec", Containers: []ContainerSpec{{Name: "c", Image: fakeImage}}})
		done <- err
	}()
	f.waitCall(t, "delete-lease waits") // the failed start's removal, before the directory's delete
	dir := filepath.Join(state, "pods", "norec")
	if _, err := os.Stat(filepath.Join(dir, recordFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("pod.json during the removal: %v, want none (its write failed)", err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the pod's directory during its removal: %v", err)
	}
	if unlock, err := poddir.LockPods(state, syscall.LOCK_EX|syscall.LOCK_NB); !errors.Is(err, syscall.EWOULDBLOCK) {
		if err == nil {
			unlock()
		}
		t.Fatalf("the pods' lock, exclusive, while a live process removes a pod directory without a record: %v, want EWOULDBLOCK (a startup garbage collection would delete it under the removal)", err)
	}
	open()
	if err := <-done; err == nil || !strings.Contains(err.Error(), "write the pod record") {
		t.Fatalf("Run = %v, want the record's write failure", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the pod's directory after the failed start: %v, want it removed", err)
	}
	unlock, err := poddir.LockPods(state, syscall.LOCK_EX|syscall.LOCK_NB)
	if err != nil {
		t.Fatalf("the pods' lock after the failed start's removal: %v, want it free", err)
	}
	unlock()
}

// A pod whose manager is gone, removed by another process (its Remove, holding the pod's
// adoption lock, renamed the directory away) between this process's read of its record and its
// take of the adoption lock: the stop or remove that adopts it for the purpose finds no pod
// (ErrNotFound), not an "adoption lock: ... no such file or directory" error.
func TestFakeStopUnmanagedRemovedMeanwhile(t *testing.T) {
	ctx := testCtx(t)
	r, f, clk := newFakeRuntime(t)
	if _, err := r.Run(ctx, PodSpec{Name: "gone", Containers: []ContainerSpec{{Name: "c", Image: fakeImage}}}); err != nil {
		t.Fatal(err)
	}
	closeManager(t, r)
	a := newFakeAdopter(t, r, f, clk)
	dir := filepath.Join(r.cfg.StateDir, "pods", "gone")
	var rec podRecord
	if err := poddir.ReadJSON(filepath.Join(dir, recordFile), &rec); err != nil {
		t.Fatal(err)
	}
	if err := poddir.Remove(dir); err != nil { // the other process's Remove, its last step
		t.Fatal(err)
	}
	for _, op := range []string{"stop", "remove"} {
		err := a.adopter.StopUnmanaged(ctx, dir, op, rec, nil)
		if !errors.Is(err, ErrNotFound) || strings.Contains(err.Error(), "no such file") {
			t.Errorf("%s of a pod removed since its record was read: %v, want ErrNotFound", op, err)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the pod's directory: %v, want none (not made again by the adoption lock)", err)
	}
}
