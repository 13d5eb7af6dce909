package shimgroup

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Pods fill the oldest group with room; a released pod's place is taken by the next; an empty
// group is forgotten and reported so.
func TestAcquireRelease(t *testing.T) {
	g := New(2)
	a := g.Acquire("p1", "g1")
	b := g.Acquire("p2", "g2")
	c := g.Acquire("p3", "g3")
	if a != "g1" || b != "g1" || c != "g3" {
		t.Fatalf("groups %s %s %s, want g1 g1 g3", a, b, c)
	}
	if again := g.Acquire("p1", "gx"); again != "g1" {
		t.Errorf("a pod's second Acquire: %s, want its group g1", again)
	}
	if g.Release("g1", "p1") {
		t.Error("g1 reported empty with p2 in it")
	}
	if d := g.Acquire("p4", "g4"); d != "g1" {
		t.Errorf("after a release: %s, want the room in g1", d)
	}
	for _, uid := range []string{"p2", "p4"} {
		last := g.Release("g1", uid)
		if last != (uid == "p4") {
			t.Errorf("Release %s: last %v", uid, last)
		}
	}
	if !g.Release("g1", "p4") {
		t.Error("a second Release of the last pod: want empty")
	}
	if e := g.Acquire("p5", "g5"); e != "g3" {
		t.Errorf("after g1 emptied: %s, want g3 (room)", e)
	}
	if g.Adopt("gA", "p5") != "gA" || g.Size("g3") != 1 || g.Size("gA") != 1 {
		t.Errorf("Adopt: sizes g3 %d gA %d", g.Size("g3"), g.Size("gA"))
	}
}

// Creations in a group whose shim does not answer yet run one at a time; once it answers they
// run at once.
func TestStartSerialisesUntilTheShimAnswers(t *testing.T) {
	g := New(4)
	var up atomic.Bool
	var running, most atomic.Int32
	fn := func() error {
		n := running.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		up.Store(true)
		running.Add(-1)
		return nil
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if err := g.Start(context.Background(), "g", func() bool { return false }, fn); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Errorf("%d creations at once before the shim answered, want 1", most.Load())
	}
	// A waiter's context ends its wait.
	gate := g.gate("g")
	gate <- struct{}{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := g.Start(ctx, "g", func() bool { return false }, fn); err != context.Canceled {
		t.Errorf("Start with a cancelled context while the gate is held: %v", err)
	}
	if err := g.Start(ctx, "g", up.Load, fn); err != nil {
		t.Errorf("Start once the shim answers: %v (want no wait)", err)
	}
	<-gate
}
