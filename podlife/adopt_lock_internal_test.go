package podlife

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/podlife/podlife/podlife/internal/poddir"
)

// The adoption lock: held by the Runtime that adopted a pod while it manages it (no other process
// adopts it meanwhile), released when that Runtime closes, and by a Remove of the pod.
func TestFakeAdoptLockHeld(t *testing.T) {
	ctx := testCtx(t)
	r, f, clk := newFakeRuntime(t)
	spec := PodSpec{Name: "locked", Containers: []ContainerSpec{{Name: "a", Image: fakeImage}}}
	if _, err := r.Run(ctx, spec); err != nil {
		t.Fatalf("Run: %v", err)
	}
	closeManager(t, r)
	dir := filepath.Join(r.cfg.StateDir, "pods", spec.Name)
	lockFree := func() bool {
		t.Helper()
		l, err := poddir.LockAdoption(dir)
		if errors.Is(err, poddir.ErrLocked) {
			return false
		}
		if err != nil {
			t.Fatalf("LockAdoption: %v", err)
		}
		_ = l.Close()
		return true
	}

	a := newFakeAdopter(t, r, f, clk)
	if _, err := a.Adopt(ctx, spec); err != nil {
		t.Fatalf("Adopt: %v", err)
	}
	if lockFree() {
		t.Fatal("the adoption lock is free while the adopter manages the pod")
	}
	if err := a.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if !lockFree() {
		t.Fatal("the adoption lock is still held once the adopter closed")
	}

	b := newFakeAdopter(t, r, f, clk)
	p, err := b.Adopt(ctx, spec)
	if err != nil {
		t.Fatalf("second Adopt: %v", err)
	}
	if lockFree() {
		t.Fatal("the adoption lock is free while the second adopter manages the pod")
	}
	if err := p.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if b.adoptLocks.Len() != 0 {
		t.Errorf("the Runtime still holds %d adoption locks after the Remove", b.adoptLocks.Len())
	}
}
