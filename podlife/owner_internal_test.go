package podlife

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/podlife/podlife/podlife/conditions"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/worker/ownerloop"
)

// The test binary checks that no closure running on a pod's loop calls do or update.
func init() { ownerloop.EnableReentryCheck() }

// Unit tests of the pod's owner loop (owner.go) on the fake tasks.Runtime: decisions taken once,
// snapshots consistent, closures after the loop's end.

// An exit racing a stop is decided once, on the loop: whichever comes first, the container's
// exit is recorded once (one Exited event per started instance), the stop starts no process
// and the pod ends with no live process.
func TestFakeExitRacingStop(t *testing.T) {
	for i := range 10 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			ctx := testCtx(t)
			r, f, _ := newFakeRuntime(t)
			p, err := r.Run(ctx, PodSpec{Name: "race", Containers: []ContainerSpec{{Name: "a", Image: fakeImage}}})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			var proc *fakeProc
			f.mu.Lock()
			for _, q := range f.procs {
				if q.name == "a" && q.started {
					proc = q
				}
			}
			f.mu.Unlock()
			if proc == nil {
				t.Fatalf("no process a; calls: %q", f.history())
			}
			var wg sync.WaitGroup
			wg.Go(func() { proc.finish(3) }) // a no-op if the stop's kill came first
			if err := p.Stop(ctx); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			wg.Wait()
			// Every started process exited (a restart created but not started when the stop
			// began is deleted, never started).
			calls := f.history()
			starts := 0
			for _, c := range calls {
				label, ok := strings.CutPrefix(c, "start ")
				if !ok || !strings.HasPrefix(label, "a") {
					continue
				}
				starts++
				if !slices.ContainsFunc(calls, func(e string) bool { return strings.HasPrefix(e, "exited "+label+" ") }) {
					t.Errorf("%s started and never exited: a process outlived the stop; calls: %q", label, calls)
				}
			}
			var exited int
			for _, e := range p.Events() {
				if e.Container == "a" && e.Reason == api.ReasonExited {
					exited++
				}
			}
			if exited != starts {
				t.Errorf("%d Exited events for %d started instances: %v", exited, starts, p.Events())
			}
			st := p.Status()
			if !st.Stopping {
				t.Errorf("status %+v, want stopping", st)
			}
			if a := containerStatus(st, "a"); a.State.Running != nil || a.Ready || a.Started {
				t.Errorf("container a %+v, want not running, not ready, not started", a)
			}
		})
	}
}

// A reader never sees a half-made change: in every snapshot the pod's conditions.ContainersReady and
// Ready conditions agree with its containers' readiness, and a pod in a terminal phase has no
// running container.
func TestFakeSnapshotsConsistent(t *testing.T) {
	ctx := testCtx(t)
	r, f, _ := newFakeRuntime(t)
	p, err := r.Run(ctx, PodSpec{Name: "snaps", RestartPolicy: RestartNever, Containers: []ContainerSpec{
		{Name: "a", Image: fakeImage}, {Name: "b", Image: fakeImage},
	}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	check := func(st PodStatus) error {
		allReady := len(st.ContainerStatuses) > 0
		running := false
		for _, c := range st.ContainerStatuses {
			allReady = allReady && c.Ready
			running = running || c.State.Running != nil
			if c.Ready && c.State.Running == nil {
				return fmt.Errorf("container %s ready but not running: %+v", c.Name, c)
			}
		}
		for _, c := range st.Conditions {
			if (c.Type == conditions.ContainersReady || c.Type == conditions.PodReady) && (c.Status == "True") != allReady {
				return fmt.Errorf("condition %s %s with containers ready=%v: %+v", c.Type, c.Status, allReady, st)
			}
		}
		if (st.Phase == PhaseSucceeded || st.Phase == PhaseFailed) && running {
			return fmt.Errorf("phase %s with a running container: %+v", st.Phase, st)
		}
		return nil
	}
	stop := make(chan struct{})
	var reader sync.WaitGroup
	var bad error
	var seen int
	reader.Go(func() {
		for {
			st := p.Status()
			seen++
			if err := check(st); err != nil && bad == nil {
				bad = err
			}
			select {
			case <-stop:
				return
			default:
			}
		}
	})
	if err := p.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}
	f.exit(t, "a", 0)
	f.exit(t, "b", 1)
	st, err := p.Wait(ctx)
	close(stop)
	reader.Wait()
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if st.Phase != PhaseFailed {
		t.Errorf("phase %s, want Failed (b exited 1 under Never)", st.Phase)
	}
	if bad != nil {
		t.Errorf("inconsistent snapshot (of %d read): %v", seen, bad)
	}
}

// Once the runtime is closed the loop has ended: a closure handed to it is not run (do and
// update report false, never block), the last snapshot stays readable, and the API calls that
// need the loop fail with ErrClosed.
func TestFakeLoopAfterClose(t *testing.T) {
	ctx := testCtx(t)
	r, _, _ := newFakeRuntime(t)
	p, err := r.Run(ctx, PodSpec{Name: "closed", Containers: []ContainerSpec{{Name: "a", Image: fakeImage}}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := p.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}
	ran := false
	if !p.w.Do(func() { ran = true }) || !ran {
		t.Fatalf("do on a live loop: ran %v", ran)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case <-p.w.LoopDone():
	default:
		t.Fatal("the pod's loop still runs after Close")
	}
	ran = false
	if p.w.Do(func() { ran = true }) || p.w.Update(func() { ran = true }) || ran {
		t.Errorf("a closure ran after the loop ended")
	}
	if a := containerStatus(p.Status(), "a"); a.State.Running == nil || !a.Ready {
		t.Errorf("last snapshot lost: %+v", a)
	}
	if c, _ := p.Container("a"); c.ID() == "" {
		t.Errorf("container ID lost after Close")
	}
	if err := p.SetCondition(ctx, "example.com/gate", "True", "", ""); !errors.Is(err, ErrClosed) {
		t.Errorf("SetCondition after Close: %v, want ErrClosed", err)
	}
	if err := p.Stop(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("Stop after Close: %v, want ErrClosed", err)
	}
}

// Remove ends the loop once everything of the pod is deleted; the final snapshot stays.
func TestFakeLoopEndsAtRemove(t *testing.T) {
	ctx := testCtx(t)
	r, _, _ := newFakeRuntime(t)
	p, err := r.Run(ctx, PodSpec{Name: "removed", RestartPolicy: RestartNever, Containers: []ContainerSpec{{Name: "a", Image: fakeImage}}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := p.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	select {
	case <-p.w.LoopDone():
	default:
		t.Fatal("the pod's loop still runs after Remove")
	}
	if p.w.Do(func() {}) {
		t.Error("do after Remove ran its closure")
	}
	if st := p.Status(); !st.Stopping || containerStatus(st, "a").State.Terminated == nil {
		t.Errorf("final status %+v, want stopping with a terminated", st)
	}
}

// WaitFor wakes on a change published by the loop, and a context's end.
func TestFakeWaitForWakes(t *testing.T) {
	ctx := testCtx(t)
	r, _, _ := newFakeRuntime(t)
	p, err := r.Run(ctx, PodSpec{Name: "wake", Containers: []ContainerSpec{{Name: "a", Image: fakeImage}}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := p.WaitFor(ctx, func(s PodStatus) bool {
			for _, c := range s.Conditions {
				if c.Type == "example.com/gate" && c.Status == "True" {
					return true
				}
			}
			return false
		})
		done <- err
	}()
	if err := p.SetCondition(ctx, "example.com/gate", "True", "Set", ""); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("WaitFor: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := p.WaitFor(cctx, func(PodStatus) bool { return false }); !errors.Is(err, context.Canceled) {
		t.Errorf("WaitFor on a cancelled ctx: %v", err)
	}
}
