package podlife

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/worker"
	"github.com/podlife/podlife/podlife/internal/worker/attempt"
	"github.com/podlife/podlife/podlife/podlifetest"
	"github.com/podlife/podlife/podlife/startpolicy"
)

// Unit tests of the supervision rules on the fake tasks.Runtime (tasks_fake_internal_test.go):
// no containerd, no root; they run with -short. They assert on the order of the calls the fake
// recorded and on the pod's events and status.

const fakeImage = "podlife.test/fake:1"

// noteHook is a hook that records "KIND NAME" in the fake's call log.
func noteHook(f *fakeTasks, kind, name string) hook.Handler {
	return hook.HandlerFunc(func(context.Context, hook.Target) error {
		f.note("%s %s", kind, name)
		return nil
	})
}

// before fails the test unless call a was recorded before call b (both recorded).
func before(t *testing.T, calls []string, a, b string) {
	t.Helper()
	i, j := slices.Index(calls, a), slices.Index(calls, b)
	if i < 0 || j < 0 || i >= j {
		t.Errorf("want %q (at %d) before %q (at %d); calls: %q", a, i, b, j, calls)
	}
}

// hasEvent reports whether the pod emitted an event of that container, type and reason whose
// message contains msg.
func hasEvent(p *podWorker, container string, typ EventType, reason Reason, msg string) bool {
	for _, e := range p.Events() {
		if e.Container == container && e.Type == typ && e.Reason == reason && strings.Contains(e.Message, msg) {
			return true
		}
	}
	return false
}

// waitEvent waits for an event of that container and reason.
func waitEvent(t *testing.T, ctx context.Context, p *podWorker, container string, reason Reason) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for e := range p.Subscribe(ctx) {
		if e.Container == container && e.Reason == reason {
			return
		}
	}
	t.Fatalf("no %s event for %q: %v", reason, container, p.Events())
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// containerStatus returns the status of container name in st (init containers included).
func containerStatus(st PodStatus, name string) ContainerStatus {
	for _, c := range append(st.InitContainerStatuses, st.ContainerStatuses...) {
		if c.Name == name {
			return c
		}
	}
	return ContainerStatus{}
}

// Sequential: the containers are created ahead of the start order, but a container starts only
// once the previous one's postStart hook has returned. Parallel: a postStart hook holds up no
// other container.
func TestFakeStartOrder(t *testing.T) {
	for _, tc := range []struct {
		policy     startpolicy.Policy
		sequential bool
	}{{startpolicy.Sequential(), true}, {startpolicy.Parallel(0), false}} {
		name := "Parallel"
		if tc.sequential {
			name = "Sequential"
		}
		t.Run(name, func(t *testing.T) {
			ctx := testCtx(t)
			r, f, _ := newFakeRuntime(t)
			release := make(chan struct{})
			spec := PodSpec{Name: "order", StartPolicy: tc.policy, Containers: []ContainerSpec{
				{Name: "a", Image: fakeImage, PostStart: hook.HandlerFunc(func(ctx context.Context, _ hook.Target) error {
					f.note("postStart a begins")
					select {
					case <-release:
					case <-ctx.Done():
						return ctx.Err()
					}
					f.note("postStart a returns")
					return nil
				})},
				{Name: "b", Image: fakeImage},
				{Name: "c", Image: fakeImage},
			}}
			p, err := r.Start(ctx, spec)
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			f.waitCall(t, "postStart a begins")
			// Every container is created while a's hook runs (their creates wait for a's
			// shim only, not for its start).
			f.waitCall(t, "create b")
			f.waitCall(t, "create c")
			if !tc.sequential {
				f.waitCall(t, "start b")
				f.waitCall(t, "start c")
			} else {
				// b and c are ready to start (Created is their last step); hold the hook a
				// while so that a start out of order would show.
				waitEvent(t, ctx, p.w, "b", api.ReasonCreated)
				waitEvent(t, ctx, p.w, "c", api.ReasonCreated)
				time.Sleep(100 * time.Millisecond)
				if i := f.index("start b"); i >= 0 {
					t.Errorf("b started while a's postStart hook ran; calls: %q", f.history())
				}
			}
			close(release)
			if err := p.WaitStarted(ctx); err != nil {
				t.Fatalf("WaitStarted: %v", err)
			}
			calls := f.history()
			before(t, calls, "create a", "start a")
			before(t, calls, "start a", "postStart a begins")
			if tc.sequential {
				before(t, calls, "postStart a returns", "start b")
				before(t, calls, "start b", "start c")
			} else {
				before(t, calls, "start b", "postStart a returns")
				before(t, calls, "start c", "postStart a returns")
			}
			st := p.Status()
			if st.Phase != PhaseRunning {
				t.Errorf("phase %s, want Running", st.Phase)
			}
			for _, c := range st.ContainerStatuses {
				if c.State.Running == nil {
					t.Errorf("container %s: state %+v, want running", c.Name, c.State)
				}
			}
			if !hasEvent(p.w, "a", EventNormal, api.ReasonPostStartCompleted, "") {
				t.Errorf("no PostStartHookCompleted event for a: %v", p.Events())
			}
		})
	}
}

// A failed postStart hook: Warning FailedPostStartHook, the container killed the kubelet's way
// (preStop, then the stop signal), its state waiting PostStartHookError with the hook's error;
// Run does not fail. Under Always the container is restarted (created anew before the exited
// instance is deleted); under Never it stays so and the pod fails.
func TestFakePostStartFailure(t *testing.T) {
	for _, policy := range []RestartPolicy{RestartNever, RestartAlways} {
		t.Run(string(policy), func(t *testing.T) {
			ctx := testCtx(t)
			r, f, _ := newFakeRuntime(t)
			var runs atomic.Int32
			spec := PodSpec{Name: "hookfail", RestartPolicy: policy, Containers: []ContainerSpec{{
				Name: "a", Image: fakeImage,
				PostStart: hook.HandlerFunc(func(context.Context, hook.Target) error {
					n := runs.Add(1)
					f.note("postStart a %d", n)
					if n == 1 {
						return errors.New("hook boom")
					}
					return nil
				}),
				PreStop: noteHook(f, "preStop", "a"),
			}}}
			p, err := r.Run(ctx, spec)
			if err != nil {
				t.Fatalf("Run: %v (a postStart failure is not Run's)", err)
			}
			f.waitCall(t, "exited a 143")
			calls := f.history()
			before(t, calls, "start a", "postStart a 1")
			before(t, calls, "postStart a 1", "preStop a")
			before(t, calls, "preStop a", "kill a TERM")
			before(t, calls, "kill a TERM", "exited a 143")
			if !hasEvent(p.w, "a", EventWarning, api.ReasonFailedPostStartHook, "PostStartHook failed") {
				t.Errorf("no FailedPostStartHook event: %v", p.Events())
			}
			if policy == RestartNever {
				st, err := p.WaitFor(ctx, func(s PodStatus) bool { return s.Phase == PhaseFailed })
				if err != nil {
					t.Fatalf("pod never Failed: %v; status %+v", err, st)
				}
				a := containerStatus(st, "a")
				// Not restarted: the kubelet shows how it ended, not waiting PostStartHookError.
				if term := a.State.Terminated; term == nil || term.ExitCode != 143 {
					t.Errorf("state %+v, want terminated 143", a.State)
				}
				if err := p.Stop(ctx); err != nil {
					t.Fatalf("Stop: %v", err)
				}
				if slices.ContainsFunc(f.history(), func(c string) bool { return strings.HasPrefix(c, "create a#") }) {
					t.Errorf("restarted under Never; calls: %q", f.history())
				}
				return
			}
			f.waitCall(t, "postStart a 2")
			calls = f.history()
			before(t, calls, "exited a 143", "create a#1")
			before(t, calls, "create a#1", "delete-task a") // the pod's shim stays up
			before(t, calls, "delete-task a", "start a#1")
			st, err := p.WaitFor(ctx, func(s PodStatus) bool { return containerStatus(s, "a").Started })
			if err != nil {
				t.Fatalf("restarted container never started: %v", err)
			}
			a := containerStatus(st, "a")
			if a.RestartCount != 1 || a.State.Running == nil || a.LastState.Terminated == nil || a.LastState.Terminated.ExitCode != 143 {
				t.Errorf("status %+v, want running, restart count 1, last state terminated 143", a)
			}
		})
	}
}

// The restart policy applied to exit codes: restarted or not, and the pod's phase when not.
func TestFakeRestartDecisions(t *testing.T) {
	for _, tc := range []struct {
		policy  RestartPolicy
		code    int
		restart bool
		phase   Phase
	}{
		{RestartAlways, 0, true, ""},
		{RestartAlways, 2, true, ""},
		{RestartOnFailure, 0, false, PhaseSucceeded},
		{RestartOnFailure, 2, true, ""},
		{RestartNever, 0, false, PhaseSucceeded},
		{RestartNever, 2, false, PhaseFailed},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.policy, tc.code), func(t *testing.T) {
			ctx := testCtx(t)
			r, f, _ := newFakeRuntime(t)
			p, err := r.Run(ctx, PodSpec{Name: "restarts", RestartPolicy: tc.policy,
				Containers: []ContainerSpec{{Name: "a", Image: fakeImage}}})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			f.exit(t, "a", tc.code)
			if tc.restart {
				f.waitCall(t, "start a#1")
				st, err := p.WaitFor(ctx, func(s PodStatus) bool { return containerStatus(s, "a").State.Running != nil })
				if err != nil {
					t.Fatal(err)
				}
				a := containerStatus(st, "a")
				if a.RestartCount != 1 || a.LastState.Terminated == nil || a.LastState.Terminated.ExitCode != tc.code {
					t.Errorf("status %+v, want restart count 1, last state terminated %d", a, tc.code)
				}
				return
			}
			st, err := p.Wait(ctx)
			if err != nil {
				t.Fatalf("Wait: %v", err)
			}
			if st.Phase != tc.phase {
				t.Errorf("phase %s, want %s", st.Phase, tc.phase)
			}
			if term := containerStatus(st, "a").State.Terminated; term == nil || term.ExitCode != tc.code {
				t.Errorf("state %+v, want terminated %d", containerStatus(st, "a").State, tc.code)
			}
			// A pod that ended on its own stops by itself: network released.
			f.waitCall(t, "network remove")
			if f.index("create a#1") >= 0 {
				t.Errorf("restarted; calls: %q", f.history())
			}
		})
	}
}

// The crash-loop back-off on the fake clock: the first restart at once, then 10 s, then 20 s,
// with the container waiting CrashLoopBackOff and a BackOff event meanwhile.
func TestFakeRestartBackoff(t *testing.T) {
	ctx := testCtx(t)
	r, f, clk := newFakeRuntime(t)
	p, err := r.Run(ctx, PodSpec{Name: "backoff", Containers: []ContainerSpec{{Name: "a", Image: fakeImage}}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	f.exit(t, "a", 1)
	f.waitCall(t, "start a#1") // at once
	if n := clk.Timers(); n != 0 {
		t.Errorf("%d fake timers after the first restart, want none", n)
	}
	for i, delay := range []time.Duration{10 * time.Second, 20 * time.Second} {
		attempt := i + 2
		f.exit(t, "a", 1)
		if err := clk.BlockUntil(ctx, 1); err != nil {
			t.Fatalf("no back-off timer after crash %d: %v", attempt, err)
		}
		st, err := p.WaitFor(ctx, func(s PodStatus) bool {
			w := containerStatus(s, "a").State.Waiting
			return w != nil && w.Reason == api.ReasonCrashLoopBackOff
		})
		if err != nil {
			t.Fatal(err)
		}
		if w := containerStatus(st, "a").State.Waiting; !strings.Contains(w.Message, fmt.Sprintf("back-off %s restarting failed container=a", delay)) {
			t.Errorf("waiting message %q, want a back-off of %v", w.Message, delay)
		}
		if !hasEvent(p.w, "a", EventWarning, api.ReasonBackOff, "Back-off restarting failed container a") {
			t.Errorf("no BackOff event: %v", p.Events())
		}
		clk.Advance(delay - time.Second)
		if n := clk.Timers(); n != 1 {
			t.Errorf("back-off timer gone %v early", time.Second)
		}
		if f.index(fmt.Sprintf("create a#%d", attempt)) >= 0 {
			t.Fatalf("restarted before the back-off was over; calls: %q", f.history())
		}
		clk.Advance(time.Second)
		f.waitCall(t, fmt.Sprintf("start a#%d", attempt))
	}
	if st := containerStatus(p.Status(), "a"); st.RestartCount != 3 {
		t.Errorf("restart count %d, want 3", st.RestartCount)
	}
}

// A stop: every preStop before its container's stop signal; the regular containers stopped
// first, the sidecars after them in reverse order; the network released and the tasks deleted
// once every process is gone.
func TestFakeStopOrderWithSidecars(t *testing.T) {
	ctx := testCtx(t)
	r, f, _ := newFakeRuntime(t)
	ctr := func(name string, sidecar bool) ContainerSpec {
		c := ContainerSpec{Name: name, Image: fakeImage, PreStop: noteHook(f, "preStop", name)}
		if sidecar {
			c.RestartPolicy = RestartAlways
		}
		return c
	}
	p, err := r.Run(ctx, PodSpec{Name: "sidecars",
		InitContainers: []ContainerSpec{ctr("s1", true), ctr("s2", true)},
		Containers:     []ContainerSpec{ctr("a", false), ctr("b", false)}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	calls := f.history()
	before(t, calls, "start s1", "start s2")
	before(t, calls, "start s2", "start a")
	before(t, calls, "start a", "start b")
	if err := p.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	calls = f.history()
	for _, n := range []string{"s1", "s2", "a", "b"} {
		before(t, calls, "preStop "+n, "kill "+n+" TERM")
		// The network and the tasks go once every process is gone (in parallel).
		for _, m := range []string{"s1", "s2", "a", "b"} {
			before(t, calls, "exited "+m+" 143", "delete-task "+n)
		}
		before(t, calls, "exited "+n+" 143", "network remove")
	}
	for _, n := range []string{"a", "b"} {
		before(t, calls, "exited "+n+" 143", "kill s2 TERM")
	}
	before(t, calls, "exited s2 143", "kill s1 TERM")
	if slices.ContainsFunc(calls, func(c string) bool { return strings.HasPrefix(c, "kill") && strings.HasSuffix(c, "KILL all") }) {
		t.Errorf("SIGKILL sent though every container stopped on its stop signal; calls: %q", calls)
	}
	if st := p.Status(); !slices.ContainsFunc(p.Events(), func(e Event) bool { return e.Reason == api.ReasonStopped }) || st.Stopping != true {
		t.Errorf("status %+v, events %v: want stopping and a Stopped event", st, p.Events())
	}
}

// A container that ignores its stop signal is SIGKILLed once the grace period is over (at least
// 2 s after the stop signal).
func TestFakeStopKillsAfterGrace(t *testing.T) {
	ctx := testCtx(t)
	r, f, _ := newFakeRuntime(t)
	f.ignoreTerm["a"] = true
	p, err := r.Run(ctx, PodSpec{Name: "stubborn", Containers: []ContainerSpec{{Name: "a", Image: fakeImage}}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	t0 := time.Now()
	if err := p.Stop(ctx, WithGracePeriod(0)); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if took := time.Since(t0); took < attempt.MinGracePeriod || took > attempt.MinGracePeriod+10*time.Second {
		t.Errorf("stop took %v, want about %v", took, attempt.MinGracePeriod)
	}
	calls := f.history()
	before(t, calls, "kill a TERM", "kill a KILL all")
	before(t, calls, "kill a KILL all", "exited a 137")
	if c := containerStatus(p.Status(), "a"); c.State.Terminated == nil || c.State.Terminated.ExitCode != 137 {
		t.Errorf("state %+v, want terminated 137", c.State)
	}
}

// Close ends every goroutine the Runtime started (exit watchers' waits, a restart back-off, a
// deadline timer, the status writer, the control socket) and touches no container.
func TestFakeCloseEndsGoroutines(t *testing.T) {
	ctx := testCtx(t)
	before := podlifetest.Goroutines("podlife/podlife/podlife.")
	r, f, clk := newFakeRuntime(t)
	p, err := r.Run(ctx, PodSpec{Name: "closing", ActiveDeadline: ptrTo(time.Hour), Containers: []ContainerSpec{
		{Name: "app", Image: fakeImage},
		{Name: "crash", Image: fakeImage},
	}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	f.exit(t, "crash", 1)
	f.waitCall(t, "start crash#1")
	f.exit(t, "crash", 1)
	if err := clk.BlockUntil(ctx, 2); err != nil { // the deadline, and crash in back-off
		t.Fatal(err)
	}
	n := len(f.history())
	t0 := time.Now()
	if err := r.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if took := time.Since(t0); took > 5*time.Second {
		t.Errorf("Close took %v", took)
	}
	var left []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if left = podlifetest.Goroutines("podlife/podlife/podlife."); len(left) <= len(before) || time.Now().After(deadline) {
			break
		}
	}
	if len(left) > len(before) {
		t.Errorf("%d goroutines running podlife code after Close, %d before:\n\n%s", len(left), len(before), strings.Join(left, "\n\n"))
	}
	clk.Advance(time.Hour) // the back-off is over: nothing restarts after Close
	if calls := f.history(); len(calls) != n {
		t.Errorf("calls after Close: %q", calls[n:])
	}
	if err := p.Stop(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("Stop after Close = %v, want ErrClosed", err)
	}
	if err := r.Close(); !errors.Is(err, ErrClosed) {
		t.Errorf("second Close = %v, want ErrClosed", err)
	}
}

func ptrTo[T any](v T) *T { return &v }

// A container that fails before it runs (its image missing under Never, its create, its start),
// in any position and under either start policy: Run returns a StartError naming it and the
// step, promptly, and everything made for the pod is undone (every container created is
// deleted, every process started has exited, the network is released, the pod forgotten).
func TestFakeEarlyFailures(t *testing.T) {
	boom := errors.New("boom")
	for _, fail := range []struct {
		step Step
		set  func(f *fakeTasks, name string, c *ContainerSpec)
	}{
		{StepPull, func(f *fakeTasks, _ string, c *ContainerSpec) {
			c.Image, c.ImagePullPolicy = "podlife.test/missing:1", PullNever
			f.absent["podlife.test/missing:1"] = true
		}},
		{StepCreate, func(f *fakeTasks, name string, _ *ContainerSpec) { f.createErr[name] = boom }},
		{StepStart, func(f *fakeTasks, name string, _ *ContainerSpec) { f.startErr[name] = boom }},
	} {
		for _, sp := range []struct {
			name   string
			policy startpolicy.Policy
		}{{"Sequential", startpolicy.Sequential()}, {"Parallel", startpolicy.Parallel(0)}} {
			for pos := range 3 {
				pname, policy := sp.name, sp.policy
				t.Run(fmt.Sprintf("%s/%s/%d", fail.step, pname, pos), func(t *testing.T) {
					ctx := testCtx(t)
					r, f, _ := newFakeRuntime(t)
					spec := PodSpec{Name: "early", StartPolicy: policy, Containers: []ContainerSpec{
						{Name: "c0", Image: fakeImage}, {Name: "c1", Image: fakeImage}, {Name: "c2", Image: fakeImage}}}
					name := fmt.Sprintf("c%d", pos)
					fail.set(f, name, &spec.Containers[pos])
					t0 := time.Now()
					_, err := r.Run(ctx, spec)
					if took := time.Since(t0); took > 10*time.Second {
						t.Errorf("Run took %v", took)
					}
					var se *StartError
					if !errors.As(err, &se) || se.Container != name || se.Step != fail.step {
						t.Fatalf("Run = %v, want a StartError of %s at %s", err, name, fail.step)
					}
					calls := f.history()
					for _, c := range calls {
						if n, ok := strings.CutPrefix(c, "create "); ok && !strings.HasSuffix(n, " failed") && !slices.Contains(calls, "delete "+n) {
							t.Errorf("container %s created, never deleted; calls: %q", n, calls)
						}
						if n, ok := strings.CutPrefix(c, "start "); ok && !strings.HasSuffix(n, " failed") && !slices.ContainsFunc(calls, func(e string) bool {
							return strings.HasPrefix(e, "exited "+n+" ")
						}) {
							t.Errorf("process of %s started, never exited; calls: %q", n, calls)
						}
					}
					if slices.Contains(calls, "network setup") && !slices.Contains(calls, "network remove") {
						t.Errorf("network never released; calls: %q", calls)
					}
					if ps := r.Pods(); len(ps) != 0 {
						t.Errorf("pods left: %v", ps)
					}
				})
			}
		}
	}
}

// Init containers run one at a time, each to a successful exit, before the app containers
// start; a failed one is restarted unless the pod's policy is Never, where the pod fails and
// its app containers never start.
func TestFakeInitContainers(t *testing.T) {
	for _, policy := range []RestartPolicy{RestartOnFailure, RestartNever} {
		t.Run(string(policy), func(t *testing.T) {
			ctx := testCtx(t)
			r, f, _ := newFakeRuntime(t)
			p, err := r.Start(ctx, PodSpec{Name: "inits", RestartPolicy: policy,
				InitContainers: []ContainerSpec{{Name: "i1", Image: fakeImage}, {Name: "i2", Image: fakeImage}},
				Containers:     []ContainerSpec{{Name: "a", Image: fakeImage}}})
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			f.waitCall(t, "start i1")
			f.exit(t, "i1", 0)
			f.waitCall(t, "start i2")
			f.exit(t, "i2", 1)
			if policy == RestartNever {
				st, err := p.WaitFor(ctx, func(s PodStatus) bool { return s.Phase == PhaseFailed })
				if err != nil {
					t.Fatalf("pod never Failed: %v", err)
				}
				if err := p.WaitStarted(ctx); err != nil {
					t.Errorf("WaitStarted = %v, want nil (the pod stays, Failed)", err)
				}
				f.waitCall(t, "network remove")
				if f.index("start a") >= 0 || f.index("create i2#1") >= 0 {
					t.Errorf("app started or init restarted under Never; calls: %q", f.history())
				}
				if a := containerStatus(st, "a"); a.State.Running != nil || a.State.Terminated != nil {
					t.Errorf("app state %+v, want never run", a.State)
				}
				return
			}
			f.waitCall(t, "start i2#1")
			if f.index("start a") >= 0 {
				t.Fatalf("app started before its init containers succeeded; calls: %q", f.history())
			}
			f.exit(t, "i2", 0)
			if err := p.WaitStarted(ctx); err != nil {
				t.Fatalf("WaitStarted: %v", err)
			}
			calls := f.history()
			before(t, calls, "exited i1 0", "start i2")
			before(t, calls, "exited i2#1 0", "start a")
			if i2 := containerStatus(p.Status(), "i2"); i2.RestartCount != 1 || i2.State.Terminated == nil || i2.State.Terminated.ExitCode != 0 {
				t.Errorf("i2 status %+v, want terminated 0 after 1 restart", i2)
			}
		})
	}
}

// An exec hook runs in the container through the task (exec), with the container's process
// spec; a non-zero exit fails it like any postStart failure.
func TestFakeExecHook(t *testing.T) {
	ctx := testCtx(t)
	r, f, _ := newFakeRuntime(t)
	f.execFn = func(name string, argv []string) (int, error) {
		if argv[0] == "false" {
			return 1, nil
		}
		return 0, nil
	}
	p, err := r.Run(ctx, PodSpec{Name: "exechook", RestartPolicy: RestartNever, Containers: []ContainerSpec{
		{Name: "ok", Image: fakeImage, PostStart: hook.Exec("true", "x")},
		{Name: "bad", Image: fakeImage, PostStart: hook.Exec("false")},
	}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	f.waitCall(t, "exited bad 143")
	calls := f.history()
	before(t, calls, "start ok", "exec ok true x")
	before(t, calls, "exec ok true x", "start bad")
	before(t, calls, "exec bad false", "kill bad TERM")
	if f.index("kill ok TERM") >= 0 {
		t.Errorf("ok killed; calls: %q", calls)
	}
	if !hasEvent(p.w, "ok", EventNormal, api.ReasonPostStartCompleted, "") || !hasEvent(p.w, "bad", EventWarning, api.ReasonFailedPostStartHook, "") {
		t.Errorf("events %v: want ok's hook completed, bad's failed", p.Events())
	}
}

// activeDeadline on the fake clock: once it is over, a DeadlineExceeded event, the containers
// stopped gracefully (preStop first), no restart, and the pod Failed with that reason.
func TestFakeActiveDeadline(t *testing.T) {
	ctx := testCtx(t)
	r, f, clk := newFakeRuntime(t)
	p, err := r.Run(ctx, PodSpec{Name: "deadline", ActiveDeadline: ptrTo(time.Minute), Containers: []ContainerSpec{
		{Name: "a", Image: fakeImage, PreStop: noteHook(f, "preStop", "a")},
	}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := clk.BlockUntil(ctx, 1); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute - time.Second)
	if p.Status().Phase != PhaseRunning || clk.Timers() != 1 {
		t.Fatalf("deadline over early: %+v", p.Status())
	}
	clk.Advance(time.Second)
	st, err := p.Wait(ctx)
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if st.Phase != PhaseFailed || st.Reason != api.ReasonDeadlineExceeded {
		t.Errorf("phase %s reason %q, want Failed DeadlineExceeded", st.Phase, st.Reason)
	}
	if !hasEvent(p.w, "", EventNormal, api.ReasonDeadlineExceeded, "longer than the specified deadline") {
		t.Errorf("no DeadlineExceeded event: %v", p.Events())
	}
	f.waitCall(t, "network remove")
	calls := f.history()
	before(t, calls, "preStop a", "kill a TERM")
	if f.index("create a#1") >= 0 {
		t.Errorf("restarted after the deadline; calls: %q", calls)
	}
}

// One shim per pod: the other containers' task creates wait until the first container's has
// started the pod's shim: until its create returned, or as soon as the shim answers.
func TestFakeShimGate(t *testing.T) {
	for _, early := range []bool{false, true} {
		t.Run(fmt.Sprintf("shim answers early=%v", early), func(t *testing.T) {
			ctx := testCtx(t)
			r, f, _ := newFakeRuntime(t)
			gate := make(chan struct{})
			f.taskGate["a"], f.shimEarly["a"] = gate, early
			p, err := r.Start(ctx, PodSpec{Name: "shim", Containers: []ContainerSpec{
				{Name: "a", Image: fakeImage}, {Name: "b", Image: fakeImage}, {Name: "c", Image: fakeImage}}})
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			f.waitCall(t, "task a")
			f.waitCall(t, "create b")
			f.waitCall(t, "create c")
			if early {
				f.waitCall(t, "task b")
				f.waitCall(t, "task c")
			} else {
				time.Sleep(100 * time.Millisecond) // a task create out of turn would show
				if f.index("task b") >= 0 || f.index("task c") >= 0 {
					t.Errorf("a sibling's task created before the pod's shim; calls: %q", f.history())
				}
			}
			close(gate)
			if err := p.WaitStarted(ctx); err != nil {
				t.Fatalf("WaitStarted: %v", err)
			}
			calls := f.history()
			for _, n := range []string{"b", "c"} {
				if early {
					before(t, calls, "task "+n, "task a returns")
				} else {
					before(t, calls, "task a returns", "task "+n)
				}
			}
		})
	}
}

// A start policy that ignores its context does not hold a stop: the stop goes on after
// worker.StartPolicySettle (StartPolicyAbandoned), kills what runs, and whatever the policy starts
// later does not start.
func TestFakeStopWithoutStuckPolicy(t *testing.T) {
	ctx := testCtx(t)
	r, f, _ := newFakeRuntime(t)
	release := make(chan struct{})
	var late atomic.Value
	stuck := api.StartPolicyFunc(func(ctx context.Context, s startpolicy.Starter) error {
		if err := s.Start(ctx, "a"); err != nil {
			return err
		}
		<-release // ignores ctx
		err := s.Start(ctx, "b")
		late.Store(fmt.Sprint(err))
		return err
	})
	p, err := r.Start(ctx, PodSpec{Name: "stuck", StartPolicy: stuck, Containers: []ContainerSpec{
		{Name: "a", Image: fakeImage}, {Name: "b", Image: fakeImage}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.WaitFor(ctx, func(s PodStatus) bool { return containerStatus(s, "a").State.Running != nil }); err != nil {
		t.Fatalf("a not running: %v", err)
	}
	t0 := time.Now()
	if err := p.Stop(ctx, WithGracePeriod(time.Second)); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if took := time.Since(t0); took < worker.StartPolicySettle || took > worker.StartPolicySettle+20*time.Second {
		t.Errorf("Stop took %v: want it to wait %v for the policy, then go on", took, worker.StartPolicySettle)
	}
	if !slices.ContainsFunc(p.Events(), func(e Event) bool { return e.Reason == api.ReasonStartPolicyAbandoned }) {
		t.Errorf("no %s event: %v", api.ReasonStartPolicyAbandoned, p.Events())
	}
	close(release)
	if err := p.WaitStarted(ctx); err != nil && !errors.Is(err, context.Canceled) {
		t.Logf("WaitStarted: %v", err)
	}
	if got, _ := late.Load().(string); got == "<nil>" || got == "" {
		t.Errorf("the policy's late start of b returned %q, want an error", got)
	}
	calls := f.history()
	if slices.Contains(calls, "start b") {
		t.Errorf("b started after the stop: %v", calls)
	}
	before(t, calls, "start a", "kill a TERM")
}
