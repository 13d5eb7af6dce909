package podlife

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/internal/clock"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/worker/record"
	"github.com/podlife/podlife/probe"
)

// Whole adoptions on the fake tasks.Runtime: no containerd, no root (they run with -short). A
// first Runtime starts a pod and is closed, which leaves the pod running unmanaged (what a
// manager's death leaves, minus the process); a second Runtime on the same state dir, fake
// runtime and clock adopts it, through the same seam a real adoption uses (containers, tasks,
// their states and labels). The real-containerd tests (adopt_test.go, adopt_crash_test.go) cover
// the same paths against containerd and a killed process.

// newFakeAdopter returns a second Runtime on r's state dir, on the fake runtime f and the clock
// clk: the process that adopts r's pods once r is closed. The test's cleanup removes its pods and
// closes it (before r's cleanup removes the state dir).
func newFakeAdopter(t *testing.T, r *Runtime, f *fakeTasks, clk *clock.Fake) *Runtime {
	t.Helper()
	var log *slog.Logger
	if os.Getenv("PODLIFE_FAKE_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})).With("test", t.Name(), "runtime", "adopter")
	}
	a := newRuntime(Config{StateDir: r.cfg.StateDir, Logger: log}.withDefaults(), clk)
	a.tasks, a.network = f, f
	t.Cleanup(func() {
		if a.isClosed() {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, p := range a.Pods() {
			if err := p.Remove(ctx); err != nil {
				t.Errorf("cleanup: remove pod %s: %v", p.Name(), err)
			}
		}
		if err := a.Close(); err != nil {
			t.Errorf("cleanup: Close: %v", err)
		}
	})
	return a
}

// closeManager closes r, the pod's manager: the pod goes on unmanaged.
func closeManager(t *testing.T, r *Runtime) {
	t.Helper()
	if err := r.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

// editSupervision changes container's entry of the pod's supervision.json as a manager that
// died at that point would have left it.
func editSupervision(t *testing.T, r *Runtime, pod, container string, fn func(*record.ContainerSupervision)) {
	t.Helper()
	if err := record.EditSupervision(filepath.Join(r.cfg.StateDir, "pods", pod), container, fn); err != nil {
		t.Fatal(err)
	}
}

// A container that exited while no manager ran: the adopter records the exit with its real code
// and time (from the task), restarts it once per the restart policy (restart count 1, last
// state terminated with that code) and says it adopted the pod.
func TestFakeAdoptExitedWhileUnmanaged(t *testing.T) {
	ctx := testCtx(t)
	r, f, clk := newFakeRuntime(t)
	spec := PodSpec{Name: "exited", Containers: []ContainerSpec{{Name: "a", Image: fakeImage}, {Name: "b", Image: fakeImage}}}
	if _, err := r.Run(ctx, spec); err != nil {
		t.Fatalf("Run: %v", err)
	}
	closeManager(t, r)
	clk.Advance(7 * time.Second)
	exitedAt := clk.Now()
	f.exit(t, "a", 3)

	a := newFakeAdopter(t, r, f, clk)
	p, err := a.Adopt(ctx, spec)
	if err != nil {
		t.Fatalf("Adopt: %v", err)
	}
	f.waitCall(t, "start a#1")
	calls := f.history()
	before(t, calls, "exited a 3", "create a#1")
	if i := f.index("create b#1"); i >= 0 {
		t.Errorf("the running container was restarted; calls: %q", calls)
	}
	st, err := p.WaitFor(ctx, func(s PodStatus) bool {
		cs := containerStatus(s, "a")
		return cs.RestartCount == 1 && cs.State.Running != nil
	})
	if err != nil {
		t.Fatalf("never restarted: %v; status %+v", err, st)
	}
	cs := containerStatus(st, "a")
	if term := cs.LastState.Terminated; term == nil || term.ExitCode != 3 || !term.FinishedAt.Equal(exitedAt) {
		t.Errorf("last state %+v, want terminated 3 at %v (the task's exit time)", cs.LastState, exitedAt)
	}
	if b := containerStatus(st, "b"); b.RestartCount != 0 || b.State.Running == nil {
		t.Errorf("b: %+v, want running, never restarted", b)
	}
	if st.Phase != PhaseRunning {
		t.Errorf("phase %s, want Running", st.Phase)
	}
	if !hasEvent(p.w, "", EventNormal, api.ReasonAdopted, "Pod adopted by pid") {
		t.Errorf("no Adopted event: %v", p.Events())
	}
	// The adopter follows the new instance as its own: an exit is restarted again.
	f.exit(t, "b", 0)
	f.waitCall(t, "start b#1")
}

// A postStart hook that its manager's death interrupted (supervision.json names the instance
// whose hook ran): the adopter reports it as a failed postStart (FailedPostStartHook), kills the
// container the kubelet's way (preStop, then the stop signal) and restarts it per policy, whose
// postStart then runs in the adopter.
func TestFakeAdoptInterruptedPostStart(t *testing.T) {
	ctx := testCtx(t)
	r, f, clk := newFakeRuntime(t)
	var postStarts atomic.Int32
	spec := PodSpec{Name: "poststart", Containers: []ContainerSpec{{
		Name: "a", Image: fakeImage,
		PostStart: hook.HandlerFunc(func(context.Context, hook.Target) error {
			f.note("postStart a %d", postStarts.Add(1))
			return nil
		}),
		PreStop: noteHook(f, "preStop", "a"),
	}}}
	p0, err := r.Run(ctx, spec)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	id := strings.TrimPrefix(containerStatus(p0.Status(), "a").ContainerID, "containerd://")
	closeManager(t, r)
	// What a manager killed in the middle of the hook leaves (crash point start.poststart).
	editSupervision(t, r, spec.Name, "a", func(s *record.ContainerSupervision) { s.PostStart = id })

	a := newFakeAdopter(t, r, f, clk)
	p, err := a.Adopt(ctx, spec)
	if err != nil {
		t.Fatalf("Adopt: %v", err)
	}
	f.waitCall(t, "postStart a 2")
	calls := f.history()
	before(t, calls, "postStart a 1", "preStop a")
	before(t, calls, "preStop a", "kill a TERM")
	before(t, calls, "kill a TERM", "exited a 143")
	before(t, calls, "exited a 143", "start a#1")
	before(t, calls, "start a#1", "postStart a 2")
	if !hasEvent(p.w, "a", EventWarning, api.ReasonFailedPostStartHook, "PostStartHook failed") {
		t.Errorf("no FailedPostStartHook event: %v", p.Events())
	}
	st, err := p.WaitFor(ctx, func(s PodStatus) bool { return containerStatus(s, "a").Started })
	if err != nil {
		t.Fatalf("restarted container never started: %v", err)
	}
	cs := containerStatus(st, "a")
	if cs.RestartCount != 1 || cs.State.Running == nil || cs.LastState.Terminated == nil || cs.LastState.Terminated.ExitCode != 143 {
		t.Errorf("status %+v, want running, restart count 1, last state terminated 143", cs)
	}
	sup, err := record.ReadSupervision(filepath.Join(r.cfg.StateDir, "pods", spec.Name), "a")
	if err != nil {
		t.Fatal(err)
	}
	if got := sup.PostStart; got != "" {
		t.Errorf("supervision.json still names a postStart in flight: %q", got)
	}
}

// The crash-loop back-off its previous manager persisted: the adopter does not restart a
// container in back-off at once; it waits out the persisted delay (a CrashLoopBackOff wait on the
// fake clock) and keeps the restart count.
func TestFakeAdoptPersistedBackoff(t *testing.T) {
	ctx := testCtx(t)
	r, f, clk := newFakeRuntime(t)
	spec := PodSpec{Name: "backoff", Containers: []ContainerSpec{{Name: "a", Image: fakeImage}}}
	p0, err := r.Run(ctx, spec)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	f.exit(t, "a", 1)
	f.waitCall(t, "start a#1") // the first restart at once
	f.exit(t, "a", 1)
	if err := clk.BlockUntil(ctx, 1); err != nil { // the 10 s back-off
		t.Fatalf("no back-off timer: %v", err)
	}
	if _, err := p0.WaitFor(ctx, func(s PodStatus) bool {
		w := containerStatus(s, "a").State.Waiting
		return w != nil && w.Reason == api.ReasonCrashLoopBackOff
	}); err != nil {
		t.Fatal(err)
	}
	closeManager(t, r)
	if n := clk.Timers(); n != 0 {
		t.Fatalf("%d fake timers after Close, want none", n)
	}

	a := newFakeAdopter(t, r, f, clk)
	p, err := a.Adopt(ctx, spec)
	if err != nil {
		t.Fatalf("Adopt: %v", err)
	}
	if err := clk.BlockUntil(ctx, 1); err != nil {
		t.Fatalf("the adopter set no back-off timer: %v", err)
	}
	st, err := p.WaitFor(ctx, func(s PodStatus) bool {
		w := containerStatus(s, "a").State.Waiting
		return w != nil && w.Reason == api.ReasonCrashLoopBackOff
	})
	if err != nil {
		t.Fatalf("never waiting CrashLoopBackOff: %v", err)
	}
	cs := containerStatus(st, "a")
	if !strings.Contains(cs.State.Waiting.Message, "back-off 10s restarting failed container=a") {
		t.Errorf("waiting message %q, want the persisted 10s back-off", cs.State.Waiting.Message)
	}
	if cs.RestartCount != 1 {
		t.Errorf("restart count %d, want 1 (the exit that the previous manager recorded is not counted again)", cs.RestartCount)
	}
	clk.Advance(9 * time.Second)
	if f.index("create a#2") >= 0 {
		t.Fatalf("restarted before the persisted back-off was over; calls: %q", f.history())
	}
	clk.Advance(time.Second)
	f.waitCall(t, "start a#2")
	if _, err := p.WaitFor(ctx, func(s PodStatus) bool {
		cs := containerStatus(s, "a")
		return cs.RestartCount == 2 && cs.State.Running != nil
	}); err != nil {
		t.Fatalf("restart count never 2: %v", err)
	}
}

// A startup probe that had succeeded for the current instance under the previous manager is not
// run again by the adopter: the container is started at once, and its readiness probe runs.
func TestFakeAdoptStartupProbePassed(t *testing.T) {
	ctx := testCtx(t)
	r, f, clk := newFakeRuntime(t)
	// The probes count from the container's start, a wall-clock time: the fake clock is put
	// past it, so that they run at once.
	clk.Advance(time.Since(clk.Now()) + time.Hour)
	var startups, readies atomic.Int32
	spec := PodSpec{Name: "startup", Containers: []ContainerSpec{{
		Name: "a", Image: fakeImage,
		StartupProbe: &probe.Spec{Prober: probe.ProberFunc(func(context.Context, hook.Target) (probe.Result, string, error) {
			f.note("startup probe %d", startups.Add(1))
			return probe.Success, "", nil
		})},
		ReadinessProbe: &probe.Spec{Prober: probe.ProberFunc(func(context.Context, hook.Target) (probe.Result, string, error) {
			f.note("readiness probe %d", readies.Add(1))
			return probe.Success, "", nil
		})},
	}}}
	p0, err := r.Run(ctx, spec)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if _, err := p0.WaitFor(ctx, func(s PodStatus) bool { return containerStatus(s, "a").Ready }); err != nil {
		t.Fatalf("never ready: %v", err)
	}
	closeManager(t, r)
	startupsBefore := startups.Load()
	if startupsBefore != 1 {
		t.Fatalf("%d startup probes before the adoption, want 1", startupsBefore)
	}

	// Counted before the adoption: the adopter's first readiness probe may run before Adopt
	// returns (Close ended the first manager's probe workers).
	readiesBefore := readies.Load()
	a := newFakeAdopter(t, r, f, clk)
	p, err := a.Adopt(ctx, spec)
	if err != nil {
		t.Fatalf("Adopt: %v", err)
	}
	f.waitCall(t, "readiness probe "+strconv.Itoa(int(readiesBefore)+1))
	st, err := p.WaitFor(ctx, func(s PodStatus) bool { cs := containerStatus(s, "a"); return cs.Started && cs.Ready })
	if err != nil {
		t.Fatalf("adopted container never started and ready: %v", err)
	}
	// A few probe periods on the fake clock: the readiness probe goes on, the startup one never.
	for i := 0; i < 3; i++ {
		n := readies.Load()
		if err := clk.BlockUntil(ctx, 1); err != nil { // the readiness probe's period
			t.Fatal(err)
		}
		clk.Advance(10 * time.Second)
		f.waitCall(t, "readiness probe "+strconv.Itoa(int(n)+1))
	}
	if n := startups.Load(); n != startupsBefore {
		t.Errorf("the startup probe ran %d more times after the adoption, want none", n-startupsBefore)
	}
	if cs := containerStatus(st, "a"); cs.RestartCount != 0 || f.index("create a#1") >= 0 {
		t.Errorf("restarted: %+v; calls %q", cs, f.history())
	}
}

// A pod with no live manager, on the fake runtime: Exec finds its running container through the
// seam (by label, its task running), and LookupPod corrects the last status written with what
// the seam says of the task (an exit meanwhile: terminated with its code).
func TestFakeUnmanagedExecAndLookup(t *testing.T) {
	ctx := testCtx(t)
	r, f, clk := newFakeRuntime(t)
	spec := PodSpec{Name: "unmanaged", RestartPolicy: RestartNever, Containers: []ContainerSpec{{Name: "a", Image: fakeImage}, {Name: "b", Image: fakeImage}}}
	if _, err := r.Run(ctx, spec); err != nil {
		t.Fatalf("Run: %v", err)
	}
	closeManager(t, r)

	o := newFakeAdopter(t, r, f, clk)
	h, err := o.Pod(spec.Name)
	if err != nil {
		t.Fatalf("Pod: %v", err)
	}
	code, err := h.Exec(ctx, "a", []string{"echo", "hi"}, ExecIO{})
	if err != nil || code != 0 {
		t.Fatalf("Exec = %d, %v", code, err)
	}
	f.waitCall(t, "exec a echo hi")
	f.exit(t, "b", 5)
	if _, err := h.Exec(ctx, "b", []string{"true"}, ExecIO{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("Exec in an exited container = %v, want ErrNotFound", err)
	}
	rec, err := o.LookupPod(ctx, spec.Name)
	if err != nil {
		t.Fatalf("LookupPod: %v", err)
	}
	if rec.Manager != 0 {
		t.Errorf("manager %d, want none", rec.Manager)
	}
	if a := containerStatus(rec.Status, "a"); a.State.Running == nil || a.Ready {
		t.Errorf("a: %+v, want running, not ready (nothing probes it)", a.State)
	}
	if b := containerStatus(rec.Status, "b"); b.State.Terminated == nil || b.State.Terminated.ExitCode != 5 {
		t.Errorf("b: %+v, want terminated 5", b.State)
	}
	if len(o.Pods()) != 0 {
		t.Errorf("Exec or LookupPod adopted the pod: %d pods", len(o.Pods()))
	}
}
