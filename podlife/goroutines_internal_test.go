package podlife

import (
	"context"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/restartrule"
)

// spawnedMarker is in the stack of every goroutine a worker started (its group's Go, package
// worker/goroutines).
const spawnedMarker = "podlife/internal/worker/goroutines.(*Group).Go"

// spawnedGoroutines returns the stacks of the goroutines a worker started that still run their
// function (not those that returned from it and are exiting), by goroutine header ("goroutine N
// [...]:").
func spawnedGoroutines() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[string]string{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, spawnedMarker) && runsItsFunction(g) {
			id, _, _ := strings.Cut(g, " [")
			out[id] = g
		}
	}
	return out
}

// runsItsFunction reports whether the goroutine of stack g, started by a worker's spawn, is in
// the function it was spawned for (a frame other than spawn's own and the group's).
func runsItsFunction(g string) bool {
	for _, l := range strings.Split(g, "\n")[1:] {
		switch {
		case l == "" || strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "created by "):
		case strings.Contains(l, spawnedMarker+".func1("), strings.Contains(l, "internal/worker/goroutines.(*Group)."):
		case strings.HasPrefix(l, "sync.") || strings.HasPrefix(l, "runtime.") || strings.HasPrefix(l, "internal/"):
		default:
			return true
		}
	}
	return false
}

// newSpawned returns the stacks of spawnedGoroutines not in before.
func newSpawned(before map[string]string) []string {
	var out []string
	for id, g := range spawnedGoroutines() {
		if _, ok := before[id]; !ok {
			out = append(out, g)
		}
	}
	return out
}

// Every goroutine a worker started has returned when its Remove returns: its loop, start
// sequence, status writer, watchers, a restart waiting out its back-off, a restart of all the
// containers, an ephemeral container's start, its hooks, its stop.
func TestFakeRemoveEndsGoroutines(t *testing.T) {
	ctx := testCtx(t)
	r, f, _ := newFakeRuntime(t)
	before := spawnedGoroutines()
	restartAll := []restartrule.Rule{{Action: restartrule.ActionRestartAllContainers,
		ExitCodes: &restartrule.OnExitCodes{Operator: restartrule.OpIn, Values: []int32{7}}}}
	p, err := r.Run(ctx, PodSpec{Name: "goroutines", ActiveDeadline: ptrTo(time.Hour), Containers: []ContainerSpec{
		{Name: "a", Image: fakeImage,
			PostStart: hook.HandlerFunc(func(ctx context.Context, _ hook.Target) error { return ctx.Err() }),
			PreStop:   noteHook(f, "preStop", "a")},
		{Name: "b", Image: fakeImage, RestartPolicy: RestartNever, RestartPolicyRules: restartAll},
	}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if _, err := p.AddEphemeralContainer(ctx, EphemeralContainerSpec{ContainerSpec: ContainerSpec{Name: "debug", Image: fakeImage}}); err != nil {
		t.Fatalf("AddEphemeralContainer: %v", err)
	}
	// A restart of all the containers, then a restart of a waiting out its back-off.
	f.exit(t, "b", 7)
	f.waitCall(t, "start b#1")
	if _, err := p.WaitFor(ctx, func(s PodStatus) bool {
		return containerStatus(s, "a").State.Running != nil && containerStatus(s, "a").RestartCount == 1
	}); err != nil {
		t.Fatalf("a not restarted by the restart of all: %v", err)
	}
	for i := 0; ; i++ {
		f.exit(t, "a", 1)
		st, err := p.WaitFor(ctx, func(s PodStatus) bool {
			a := containerStatus(s, "a")
			return a.State.Waiting != nil && a.State.Waiting.Reason == api.ReasonCrashLoopBackOff || a.RestartCount > 1+i && a.State.Running != nil
		})
		if err != nil {
			t.Fatalf("a neither restarted nor in back-off: %v", err)
		}
		if containerStatus(st, "a").State.Waiting != nil || i > 3 {
			break
		}
	}
	live, _ := p.w.Goroutines()
	if live["loop"] != 1 || live["restart"] < 1 {
		t.Errorf("goroutines before Remove %v, want the loop and a restart in back-off among them", live)
	}
	if err := p.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	live, abandoned := p.w.Goroutines()
	if len(live) > 0 || len(abandoned) > 0 {
		t.Errorf("goroutines of the worker left after Remove: %v, abandoned %v", live, abandoned)
	}
	if left := newSpawned(before); len(left) > 0 {
		t.Errorf("%d goroutines a worker started outlive its Remove:\n%s", len(left), strings.Join(left, "\n\n"))
	}
}

// A Go preStop hook that ignores its context is abandoned when the grace period is over: it is
// the one goroutine of the worker that its Remove does not await, and it is reported as
// abandoned until it returns. An exec, HTTP or sleep hook is never abandoned that way (see
// package worker/goroutines).
func TestFakeAbandonedGoHookIsTheOnlyGoroutineLeft(t *testing.T) {
	ctx := testCtx(t)
	r, _, _ := newFakeRuntime(t)
	before := spawnedGoroutines()
	release := make(chan struct{})
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	p, err := r.Run(ctx, PodSpec{Name: "stuckhook", TerminationGracePeriod: ptrTo(time.Second), Containers: []ContainerSpec{{
		Name: "a", Image: fakeImage,
		PreStop: hook.HandlerFunc(func(context.Context, hook.Target) error { <-release; return nil }), // ignores its context
	}}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := p.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	live, abandoned := p.w.Goroutines()
	if len(live) > 0 || !maps.Equal(abandoned, map[string]int{"hook": 1}) {
		t.Errorf("after Remove: live %v, abandoned %v; want none live, the preStop hook abandoned", live, abandoned)
	}
	left := newSpawned(before)
	if len(left) != 1 || !strings.Contains(left[0], "TestFakeAbandonedGoHookIsTheOnlyGoroutineLeft") {
		t.Errorf("goroutines a worker started left after Remove (want only the abandoned hook):\n%s", strings.Join(left, "\n\n"))
	}
	close(release)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, abandoned := p.w.Goroutines(); len(abandoned) == 0 && len(newSpawned(before)) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the released hook's goroutine did not end: %v", slices.Collect(maps.Keys(abandoned)))
		}
		time.Sleep(10 * time.Millisecond) // polling its end: the hook is the test's own code
	}
}
