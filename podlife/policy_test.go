package podlife_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/podlife/podlife/podlife/startpolicy"
)

// recorder is a fake Starter: it logs begin/end of each start and can fail or block some.
// Wait follows what Start did: a container is started once its start returned without error,
// and failed (ErrDependencyFailed) once its start failed.
type recorder struct {
	names    []string
	deps     map[string][]startpolicy.Dependency
	mu       sync.Mutex
	log      []string
	fail     map[string]bool
	inFlight atomic.Int32
	maxIn    atomic.Int32
	gate     chan struct{} // if set, every start waits for it
	ended    map[string]chan struct{}
	failed   map[string]bool
}

func newRecorder(names ...string) *recorder {
	r := &recorder{names: names, ended: map[string]chan struct{}{}, failed: map[string]bool{}, fail: map[string]bool{}}
	for _, n := range names {
		r.ended[n] = make(chan struct{})
	}
	return r
}

func (r *recorder) Containers() []string { return r.names }

func (r *recorder) DependsOn(name string) []startpolicy.Dependency { return r.deps[name] }

func (r *recorder) Wait(ctx context.Context, name string, _ startpolicy.DependencyCondition) error {
	select {
	case <-r.ended[name]:
	case <-ctx.Done():
		return ctx.Err()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failed[name] {
		return fmt.Errorf("%s failed: %w", name, startpolicy.ErrDependencyFailed)
	}
	return nil
}

func (r *recorder) Start(ctx context.Context, name string) error {
	n := r.inFlight.Add(1)
	defer r.inFlight.Add(-1)
	for {
		m := r.maxIn.Load()
		if n <= m || r.maxIn.CompareAndSwap(m, n) {
			break
		}
	}
	r.mu.Lock()
	r.log = append(r.log, "begin "+name)
	r.mu.Unlock()
	if r.gate != nil {
		<-r.gate
	}
	r.mu.Lock()
	r.log = append(r.log, "end "+name)
	r.failed[name] = r.fail[name]
	r.mu.Unlock()
	close(r.ended[name])
	if r.fail[name] {
		return errors.New(name + " failed")
	}
	return nil
}

// onStart wraps a recorder to run fn before each start.
type onStart struct {
	*recorder
	fn func()
}

func (o onStart) Start(ctx context.Context, name string) error {
	o.fn()
	return o.recorder.Start(ctx, name)
}

func TestSequentialOrderAndContinueAfterFailure(t *testing.T) {
	r := newRecorder("a", "b", "c")
	r.fail["b"] = true
	err := startpolicy.Sequential().Start(context.Background(), r)
	want := []string{"begin a", "end a", "begin b", "end b", "begin c", "end c"}
	if !slices.Equal(r.log, want) {
		t.Errorf("log %v, want %v (one at a time, in order)", r.log, want)
	}
	if err == nil || err.Error() != "b failed" {
		t.Errorf("err %v, want b's failure", err)
	}
}

func TestSequentialStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	err := startpolicy.Sequential().Start(ctx, onStart{newRecorder("a", "b"), func() { calls++; cancel() }})
	if calls != 1 || !errors.Is(err, context.Canceled) {
		t.Errorf("calls %d err %v, want 1 call and context.Canceled", calls, err)
	}
}

func TestParallelRunsAtOnceUpToLimit(t *testing.T) {
	for _, tc := range []struct {
		limit, want int
	}{{0, 4}, {2, 2}, {1, 1}} {
		r := newRecorder("a", "b", "c", "d")
		r.gate = make(chan struct{})
		done := make(chan error)
		go func() {
			done <- startpolicy.Parallel(tc.limit).Start(context.Background(), r)
		}()
		// Wait until as many starts as allowed are in flight, then release them all.
		for int(r.inFlight.Load()) < tc.want {
			select {
			case err := <-done:
				t.Fatalf("returned early: %v", err)
			default:
			}
		}
		close(r.gate)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if got := int(r.maxIn.Load()); got != tc.want {
			t.Errorf("limit %d: %d starts in flight at most, want %d", tc.limit, got, tc.want)
		}
	}
}

// DependencyOrder on a fake Starter: a container starts only once what it depends on has
// reached its condition, independent ones start at once, and a failed dependency fails its
// dependents without starting them.
func TestDependencyOrderWaitsForDependencies(t *testing.T) {
	r := newRecorder("app", "db", "cache", "late")
	r.deps = map[string][]startpolicy.Dependency{
		"app":  {{Container: "db", Condition: startpolicy.ContainerStarted}, {Container: "cache", Condition: startpolicy.ContainerStarted}},
		"late": {{Container: "app", Condition: startpolicy.ContainerStarted}},
	}
	r.fail["cache"] = true
	err := startpolicy.DependencyOrder().Start(context.Background(), r)
	if !errors.Is(err, startpolicy.ErrDependencyFailed) || !strings.Contains(err.Error(), `container "app"`) || !strings.Contains(err.Error(), `container "late"`) {
		t.Errorf("err %v, want app's and late's dependency failures", err)
	}
	begun := map[string]bool{}
	for _, l := range r.log {
		if name, ok := strings.CutPrefix(l, "begin "); ok {
			begun[name] = true
		}
	}
	if !begun["db"] || !begun["cache"] || begun["app"] || begun["late"] {
		t.Errorf("started %v, want db and cache only (app needs cache, which failed; late needs app)", r.log)
	}

	r = newRecorder("app", "db")
	r.deps = map[string][]startpolicy.Dependency{"app": {{Container: "db", Condition: startpolicy.ContainerStarted}}}
	if err := startpolicy.DependencyOrder().Start(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if want := []string{"begin db", "end db", "begin app", "end app"}; !slices.Equal(r.log, want) {
		t.Errorf("log %v, want %v (app after db)", r.log, want)
	}
}
