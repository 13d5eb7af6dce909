package resizing_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/resizing"
)

// fakeTarget is a container that does not run.
type fakeTarget struct {
	stopping  bool
	allocated map[string]api.Resources
	events    []string
}

func (f *fakeTarget) Stopping() bool                      { return f.stopping }
func (f *fakeTarget) Allocated() map[string]api.Resources { return f.allocated }
func (f *fakeTarget) Running() (string, tasks.Task)       { return "", nil }
func (f *fakeTarget) Allocate(next api.Resources)         { f.allocated["c"] = next }
func (f *fakeTarget) Emit(_ api.EventType, r api.Reason, msg string) {
	f.events = append(f.events, string(r)+": "+msg)
}
func (f *fakeTarget) Restart(context.Context) { panic("restart of a container that does not run") }

func TestResize(t *testing.T) {
	cur := api.Resources{CPURequest: 100, CPULimit: 200, MemoryRequest: 1 << 20, MemoryLimit: 2 << 20}
	spec := &api.PodSpec{Name: "p", Containers: []api.ContainerSpec{{Name: "c", Image: "i", Resources: cur}}}
	ctx := context.Background()
	f := &fakeTarget{stopping: true, allocated: map[string]api.Resources{"c": cur}}
	if err := resizing.Resize(ctx, f, resizing.Host{}, "p", spec, &spec.Containers[0], cur); !errors.Is(err, api.ErrPodStopping) {
		t.Fatalf("resize of a stopping pod: %v, want ErrPodStopping", err)
	}
	f.stopping = false
	if err := resizing.Resize(ctx, f, resizing.Host{}, "p", spec, &spec.Containers[0], cur); err != nil || len(f.events) > 0 {
		t.Fatalf("resize to the same resources: %v, events %q; want nothing done", err, f.events)
	}
	var verr *api.ValidationError
	if err := resizing.Resize(ctx, f, resizing.Host{}, "p", spec, &spec.Containers[0], api.Resources{}); !errors.As(err, &verr) {
		t.Fatalf("resize to BestEffort: %v, want a *ValidationError (the QoS class may not change)", err)
	}
	next := cur
	next.CPULimit = 300
	if err := resizing.Resize(ctx, f, resizing.Host{}, "p", spec, &spec.Containers[0], next); err != nil {
		t.Fatal(err)
	}
	want := "Resized: Container c resized: requests cpu=100m memory=1048576, limits cpu=300m memory=2097152"
	if f.allocated["c"] != next || len(f.events) != 1 || f.events[0] != want {
		t.Fatalf("allocated %+v, events %q; want %+v, %q", f.allocated["c"], f.events, next, want)
	}
}

func TestRecord(t *testing.T) {
	shared := []api.ContainerSpec{{Name: "a"}, {Name: "b"}}
	spec := api.PodSpec{Containers: shared, InitContainers: []api.ContainerSpec{{Name: "i"}}}
	next := api.Resources{CPULimit: 5}
	resizing.Record(&spec, false, "b", next)
	if spec.Containers[1].Resources != next || shared[1].Resources != (api.Resources{}) {
		t.Fatalf("recorded %+v; the shared array %+v must stay", spec.Containers, shared)
	}
	resizing.Record(&spec, true, "i", next)
	if spec.InitContainers[0].Resources != next {
		t.Fatalf("init containers %+v", spec.InitContainers)
	}
}

func TestGate(t *testing.T) {
	g := resizing.NewGate()
	closed := make(chan struct{})
	end, err := g.Begin(context.Background(), closed)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := g.Begin(ctx, closed); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second Begin while the first runs: %v, want the context's error", err)
	}
	got := make(chan error, 1)
	go func() {
		end2, err := g.Begin(context.Background(), closed)
		if err == nil {
			end2()
		}
		got <- err
	}()
	end()
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("Begin after the first ended: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Begin still waits after the resize in progress ended")
	}
	close(closed)
	if _, err := g.Begin(context.Background(), closed); !errors.Is(err, api.ErrClosed) {
		t.Fatalf("Begin once the loop ended: %v, want ErrClosed", err)
	}
}
