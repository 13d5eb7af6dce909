package podlife

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/internal/poddir"
)

// stallBound is how long a call that does no I/O may take before the test calls it stalled:
// generous, since the machine is shared; a stall waits for the lock, which the test holds until
// the end.
const stallBound = 30 * time.Second

// A startup garbage collection in another process holds the pods' lock exclusively (package gc).
// A pod start of this Runtime waits for it to create its directory; meanwhile Status, ListPods,
// Pods, Pod and Close must not wait: Runtime.mu is never held across that lock. The start then
// finds the runtime closed, fails with ErrClosed, and leaves no directory behind.
func TestFakePodsLockDoesNotStallRuntime(t *testing.T) {
	ctx := testCtx(t)
	r, _, _ := newFakeRuntime(t)
	a, err := r.Run(ctx, PodSpec{Name: "a", Containers: []ContainerSpec{{Name: "a", Image: fakeImage}}})
	if err != nil {
		t.Fatalf("Run a: %v", err)
	}
	if err := a.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady a: %v", err)
	}

	// flock locks belong to an open file description: taken on a description of its own, the
	// lock blocks this Runtime's shared lock as another process's would.
	gcUnlock, err := poddir.LockPods(r.cfg.StateDir, syscall.LOCK_EX)
	if err != nil {
		t.Fatalf("lock pods: %v", err)
	}
	defer gcUnlock()

	runErr := make(chan error, 1)
	go func() {
		_, err := r.Run(ctx, PodSpec{Name: "b", Containers: []ContainerSpec{{Name: "b", Image: fakeImage}}})
		runErr <- err
	}()
	// Wait until b's start has taken its name and so is at (or past) the pods' lock.
	deadline := time.Now().Add(stallBound)
	for !r.isReserved("b") {
		if time.Now().After(deadline) {
			t.Fatal("the start of b never reserved its name")
		}
		select {
		case err := <-runErr:
			t.Fatalf("Run b returned while the pods' lock is held: %v", err)
		case <-time.After(time.Millisecond):
		}
	}

	calls := make(chan string, 1)
	go func() {
		if st := a.Status(); st.Phase != PhaseRunning {
			t.Errorf("a: phase %s, want Running", st.Phase)
		}
		recs, err := r.ListPods(ctx)
		if err != nil || len(recs) != 1 || recs[0].Name != "a" {
			t.Errorf("ListPods = %v, %v: want only a", recs, err)
		}
		if ps := r.Pods(); len(ps) != 1 || ps[0].Name() != "a" {
			t.Errorf("Pods: %d pods, want only a", len(ps))
		}
		if _, err := r.Pod("a"); err != nil {
			t.Errorf("Pod(a): %v", err)
		}
		calls <- "done"
	}()
	select {
	case <-calls:
	case <-time.After(stallBound):
		t.Fatal("Status, ListPods, Pods or Pod waited for another process's pods lock")
	}

	closed := make(chan error, 1)
	go func() { closed <- r.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(stallBound):
		t.Fatal("Close waited for another process's pods lock")
	}

	gcUnlock()
	select {
	case err := <-runErr:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("Run b after Close: %v, want ErrClosed", err)
		}
	case <-time.After(stallBound):
		t.Fatal("Run b never returned once the lock was released")
	}
	if _, err := os.Stat(filepath.Join(r.cfg.StateDir, "pods", "b")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("pods/b after the closed start: %v, want it gone", err)
	}
}

// isReserved reports whether a pod start or adoption holds the name (see podtable.Table.Reserve).
func (r *Runtime) isReserved(name string) bool {
	return r.table.Reserved(name)
}
