package podlife_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/podlifetest"
	"github.com/podlife/podlife/podlife/reasons"
	"github.com/podlife/podlife/probe"
)

// ownContainerd is a containerd the test starts in its own directory (not the shared one of the
// other tests), so that it can kill it and start it again on the same root and state.
type ownContainerd struct {
	t   *testing.T
	cfg daemon.Config
	mu  sync.Mutex
	d   *daemon.Daemon
}

// testContainerdBinary is the containerd the integration tests run (see testEnv.setup).
func testContainerdBinary(t *testing.T) string {
	bin, err := podlifetest.ContainerdBinary("../.cache/bin/containerd")
	if err != nil {
		t.Skip(err)
	}
	return bin
}

// newOwnContainerd starts a containerd for this test only, and a harness whose Runtime uses it
// as a configured (system-style) address. Its cleanup, after the harness's, checks that nothing
// is left in that containerd and stops it.
func newOwnContainerd(t *testing.T, opts ...harnessOption) (*ownContainerd, *harness) {
	t.Helper()
	if env.skip != "" {
		t.Skip(env.skip)
	}
	dir, err := os.MkdirTemp("", "plr-")
	if err != nil {
		t.Fatal(err)
	}
	o := &ownContainerd{t: t, cfg: daemon.Config{Binary: testContainerdBinary(t), Dir: filepath.Join(dir, "ctrd"),
		LogFile: filepath.Join(dir, "containerd.log")}}
	var ns string
	t.Cleanup(func() { // runs after the harness's cleanup (t.Cleanup is LIFO)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if d := o.daemon(); d != nil && ns != "" {
			if c, err := client.New(d.Address()); err == nil {
				nctx := namespaces.WithNamespace(ctx, ns)
				leaks, err := podlifetest.ContainerdLeaks(nctx, c, ns, testImage)
				if err != nil {
					t.Errorf("leak check: %v", err)
				}
				for _, l := range leaks {
					t.Errorf("leak in the test's containerd: %s", l)
				}
				c.Close()
			}
		}
		if t.Failed() {
			if b, err := os.ReadFile(o.cfg.LogFile); err == nil {
				t.Logf("containerd log (plugin lines left out):\n%s", tail(withoutPluginLines(string(b)), 80))
			}
		}
		if d := o.daemon(); d != nil {
			_ = d.Stop(ctx)
		}
		_ = os.RemoveAll(dir)
	})
	o.start()
	h := newHarness(t, append([]harnessOption{func(c *podlife.Config) { c.Address = o.daemon().Address() }}, opts...)...)
	ns = h.ns
	return o, h
}

func (o *ownContainerd) daemon() *daemon.Daemon {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.d
}

// start starts the containerd (again, on the same root and state).
func (o *ownContainerd) start() time.Time {
	o.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := daemon.Start(ctx, o.cfg)
	if err != nil {
		o.t.Fatalf("start containerd: %v", err)
	}
	o.mu.Lock()
	o.d = d
	o.mu.Unlock()
	return time.Now()
}

// kill SIGKILLs the containerd and waits until it is gone. Its shims keep running.
func (o *ownContainerd) kill() time.Time {
	o.t.Helper()
	d := o.daemon()
	if err := syscall.Kill(d.PID(), syscall.SIGKILL); err != nil {
		o.t.Fatalf("kill containerd: %v", err)
	}
	select {
	case <-d.Done():
	case <-time.After(10 * time.Second):
		o.t.Fatal("containerd still running 10 s after SIGKILL")
	}
	return time.Now()
}

// taskPID returns the host PID of a container's task, asked from the containerd directly.
func (o *ownContainerd) taskPID(t *testing.T, ns, id string) uint32 {
	t.Helper()
	c, err := client.New(o.daemon().Address(), client.WithDefaultNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ctr, err := c.LoadContainer(ctx, id)
	if err != nil {
		t.Fatalf("load container %s: %v", id, err)
	}
	task, err := ctr.Task(ctx, nil)
	if err != nil {
		t.Fatalf("task of %s: %v", id, err)
	}
	return task.Pid()
}

// procStart returns a process's start time (clock ticks after boot), "" if it is gone: with the
// PID, it identifies the process.
func procStart(pid uint32) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 20 || f[0] == "Z" {
		return ""
	}
	return f[19]
}

func withoutPluginLines(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.Contains(l, "loading plugin") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// eventLog collects a pod's events from the subscription on.
type eventLog struct {
	mu  sync.Mutex
	all []podlife.Event
}

func collect(ctx context.Context, p *podlife.Pod) *eventLog {
	l := &eventLog{}
	ch := p.Subscribe(ctx)
	go func() {
		for e := range ch {
			l.mu.Lock()
			l.all = append(l.all, e)
			l.mu.Unlock()
		}
	}()
	return l
}

func (l *eventLog) with(reason podlife.Reason) []podlife.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []podlife.Event
	for _, e := range l.all {
		if e.Reason == reason {
			out = append(out, e)
		}
	}
	return out
}

// TestSmokeContainerdRestartKeepsPod: containerd SIGKILLed under a live Runtime, with a pod
// running whose container has exec readiness and liveness probes, then started again by the test
// on the same root and state. The container keeps its process (PID and start time) and restart
// count, no exit and no probe failure is reported, the Unavailable and Recovered events come,
// probes and exec go on afterwards, and Stop and Remove work.
func TestSmokeContainerdRestartKeepsPod(t *testing.T) {
	own, h := newOwnContainerd(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "keep", TerminationGracePeriod: ptr(10 * time.Second),
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage,
			Command: []string{"/bin/sh", "-c", "touch /tmp/ready; " + loopForever},
			// Threshold 1: a single probe failure while containerd is away would restart it.
			ReadinessProbe: execProbe("test -f /tmp/ready", 100*time.Millisecond, 1),
			LivenessProbe:  slowHostProbe(execProbe("true", 100*time.Millisecond, 1)),
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := pod.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}
	app, _ := pod.Container("app")
	id := app.ID()
	pid := own.taskPID(t, h.ns, id)
	start := procStart(pid)
	if start == "" {
		t.Fatalf("container process %d not found", pid)
	}
	evs := collect(ctx, pod)

	own.kill()
	waitEvent(t, ctx, pod, "", reasons.ContainerdUnavailable)
	// Probes run every 100 ms: let several periods pass while containerd is away.
	time.Sleep(1500 * time.Millisecond)
	if procStart(pid) != start {
		t.Fatalf("the container's process %d is gone while containerd is away", pid)
	}
	if st := pod.Status(); st.Phase != podlife.PhaseRunning || st.ContainerStatuses[0].State.Running == nil || !st.ContainerStatuses[0].Ready {
		t.Errorf("while containerd is away: phase %s, container %+v; want Running and ready", st.Phase, st.ContainerStatuses[0])
	}
	t0 := time.Now()
	if _, err := execOutput(ctx, pod, "app", []string{"true"}); !errors.Is(err, podlife.ErrUnavailable) || time.Since(t0) > 5*time.Second {
		t.Errorf("Exec while containerd is away: %v after %v, want an error wrapping ErrUnavailable at once", err, time.Since(t0))
	}
	restarted := own.start()
	waitEvent(t, ctx, pod, "", reasons.ContainerdRecovered)
	t.Logf("recovered %v after containerd answered again", time.Since(restarted).Round(time.Millisecond))

	// Probes go on: readiness follows the file both ways, through exec in the container.
	if res, err := execOutput(ctx, pod, "app", []string{"rm", "/tmp/ready"}); err != nil || res.ExitCode != 0 {
		t.Fatalf("exec after the reconnection: %v, %+v", err, res)
	}
	if _, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool { return !s.ContainerStatuses[0].Ready }); err != nil {
		t.Fatalf("readiness probe stopped after the reconnection: %v", err)
	}
	if _, err := execOutput(ctx, pod, "app", []string{"touch", "/tmp/ready"}); err != nil {
		t.Fatal(err)
	}
	if err := pod.WaitReady(ctx); err != nil {
		t.Fatalf("not ready again: %v", err)
	}

	if got := own.taskPID(t, h.ns, id); got != pid || procStart(pid) != start {
		t.Errorf("task PID %d (start %q), want the same process %d (start %s)", got, procStart(pid), pid, start)
	}
	st := pod.Status()
	if cs := st.ContainerStatuses[0]; cs.RestartCount != 0 || cs.State.Running == nil || cs.ContainerID != "containerd://"+id {
		t.Errorf("container status %+v: want the same instance running, no restart", cs)
	}
	for _, reason := range []podlife.Reason{reasons.Exited, reasons.Killing, reasons.BackOff} {
		if e := evs.with(reason); len(e) > 0 {
			t.Errorf("%s events: %v", reason, e)
		}
	}
	// Unhealthy events only from the readiness flip the test made (after the recovery).
	for _, e := range evs.with(reasons.Unhealthy) {
		if !strings.HasPrefix(e.Message, "Readiness probe failed") {
			t.Errorf("probe event %v", e)
		}
	}
	if n := len(evs.with(reasons.ContainerdUnavailable)); n != 1 {
		t.Errorf("%d ContainerdUnavailable events, want 1", n)
	}

	if err := pod.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	ex := waitEvent(t, ctx, pod, "app", reasons.Exited)
	if !strings.HasSuffix(ex.Message, "exited with code 0") {
		t.Errorf("exit after Stop: %q, want code 0 (its TERM trap)", ex.Message)
	}
	if procStart(pid) != "" {
		t.Errorf("process %d still runs after Stop", pid)
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
}

// TestSmokeContainerdRestartExitMeanwhile: containers that exit with code 7 while containerd is
// away are reported with their real exit code and time (their shims tell), and the restart policy
// applies once containerd is back: OnFailure restarts (restartCount 1), Never leaves the pod
// Failed. With one shim per pod and one per container (the shim's socket differs).
func TestSmokeContainerdRestartExitMeanwhile(t *testing.T) {
	for _, mode := range []podlife.ShimMode{podlife.ShimPerPod, podlife.ShimPerContainer} {
		t.Run(string(mode), func(t *testing.T) { testExitMeanwhile(t, mode) })
	}
}

func testExitMeanwhile(t *testing.T, mode podlife.ShimMode) {
	own, h := newOwnContainerd(t, fastBackoff, func(c *podlife.Config) { c.Shims = mode })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	marks := t.TempDir()
	spec := func(name string, policy podlife.RestartPolicy) podlife.PodSpec {
		return podlife.PodSpec{
			Name: name, RestartPolicy: policy, TerminationGracePeriod: ptr(5 * time.Second),
			Volumes: []podlife.Volume{{Name: "marks", HostPath: &podlife.HostPathVolume{Path: marks, Type: podlife.HostPathDirectory}}},
			Containers: []podlife.ContainerSpec{{
				Name: "app", Image: testImage,
				VolumeMounts: []podlife.VolumeMount{{Name: "marks", MountPath: "/marks"}},
				// Exits 7 once the test says so; a restarted instance stays up.
				Command: []string{"/bin/sh", "-c", "if [ -f /marks/" + name + ".ran ]; then " + loopForever + "; fi; touch /marks/" + name + ".ran; " +
					"until [ -f /marks/go ]; do sleep 0.05; done; exit 7"},
			}},
		}
	}
	pods := map[podlife.RestartPolicy]*podlife.Pod{}
	pids := map[podlife.RestartPolicy]uint32{}
	for _, policy := range []podlife.RestartPolicy{podlife.RestartOnFailure, podlife.RestartNever} {
		p, err := h.rt.Run(ctx, spec(strings.ToLower(string(policy)), policy))
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		app, _ := p.Container("app")
		pods[policy], pids[policy] = p, own.taskPID(t, h.ns, app.ID())
	}

	own.kill()
	for _, p := range pods {
		waitEvent(t, ctx, p, "", reasons.ContainerdUnavailable)
	}
	told := time.Now()
	if err := os.WriteFile(filepath.Join(marks, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for policy, pid := range pids {
		// Until reaped (the shim stamps the exit time when it reaps).
		for _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil; _, err = os.Stat(fmt.Sprintf("/proc/%d", pid)) {
			if ctx.Err() != nil {
				t.Fatalf("%s: process %d did not exit", policy, pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// The shim stamps the exit a moment after it reaps the process (1.6: up to a few ms later; a
	// loaded machine can delay its goroutine: 500 ms of slack, far less than a restart of containerd).
	exitedBy := time.Now().Add(500 * time.Millisecond)
	// The shims know the exits: they are reported with the real code and time while containerd
	// is still away, and no restart happens before it is back.
	for policy, p := range pods {
		ex := waitEvent(t, ctx, p, "app", reasons.Exited)
		if !strings.HasSuffix(ex.Message, "exited with code 7") || ex.Time.After(exitedBy) || ex.Time.Before(told) {
			t.Errorf("%s: exit event %v, want code 7 at the real exit time (between %s and %s)", policy, ex, told.Format("15:04:05.000"), exitedBy.Format("15:04:05.000"))
		}
		if st := p.Status(); st.ContainerStatuses[0].RestartCount != 0 {
			t.Errorf("%s: restarted while containerd is away: %+v", policy, st.ContainerStatuses[0])
		}
	}
	if e := events(pods[podlife.RestartOnFailure], "app", reasons.Created); len(e) != 1 {
		t.Errorf("OnFailure: %d Created events while containerd is away, want only the first", len(e))
	}
	own.start()
	for _, p := range pods {
		waitEvent(t, ctx, p, "", reasons.ContainerdRecovered)
	}
	st, err := pods[podlife.RestartOnFailure].WaitFor(ctx, func(s podlife.PodStatus) bool {
		return s.ContainerStatuses[0].RestartCount == 1 && s.ContainerStatuses[0].State.Running != nil
	})
	if err != nil {
		t.Errorf("OnFailure: not restarted: %v; status %+v", err, st)
	} else if lt := st.ContainerStatuses[0].LastState.Terminated; lt == nil || lt.ExitCode != 7 || lt.FinishedAt.After(exitedBy) {
		t.Errorf("OnFailure: lastState %+v, want exit code 7 finished before %s", lt, exitedBy.Format("15:04:05.000"))
	}
	st, err = pods[podlife.RestartNever].Wait(ctx)
	if err != nil || st.Phase != podlife.PhaseFailed {
		t.Errorf("Never: %v, phase %s, want Failed", err, st.Phase)
	} else if term := st.ContainerStatuses[0].State.Terminated; term == nil || term.ExitCode != 7 || st.ContainerStatuses[0].RestartCount != 0 {
		t.Errorf("Never: container %+v, want terminated with code 7, not restarted", st.ContainerStatuses[0])
	}
	for _, p := range pods {
		if err := p.Remove(ctx); err != nil {
			t.Errorf("Remove %s: %v", p.Name(), err)
		}
	}
}

// TestSmokeContainerdAwayStopWaits: a Stop while containerd is away does not report success: it
// returns with the caller's context, the error wrapping ErrUnavailable, and the container still
// runs; Start is refused. Once containerd is back, the stop goes through and Remove works.
func TestSmokeContainerdAwayStopWaits(t *testing.T) {
	own, h := newOwnContainerd(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pod, pid, start := loopingPod(ctx, t, own, h, "away", 10*time.Second)

	own.kill()
	waitEvent(t, ctx, pod, "", reasons.ContainerdUnavailable)
	sctx, scancel := context.WithTimeout(ctx, time.Second)
	err := pod.Stop(sctx)
	scancel()
	if !errors.Is(err, podlife.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Stop while containerd is away: %v, want an error wrapping ErrUnavailable and the deadline", err)
	}
	if procStart(pid) != start {
		t.Errorf("the container's process %d is gone while containerd is away", pid)
	}
	if _, err := h.rt.Start(ctx, podlife.PodSpec{Name: "later", Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage}}}); !errors.Is(err, podlife.ErrUnavailable) {
		t.Errorf("Start while containerd is away: %v, want an error wrapping ErrUnavailable", err)
	}

	own.start()
	if err := pod.Stop(ctx); err != nil {
		t.Fatalf("Stop after containerd is back: %v", err)
	}
	if ex := waitEvent(t, ctx, pod, "app", reasons.Exited); !strings.HasSuffix(ex.Message, "exited with code 0") {
		t.Errorf("exit %q, want code 0 (its TERM trap)", ex.Message)
	}
	if procStart(pid) != "" {
		t.Errorf("process %d still runs after Stop", pid)
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
}

// TestContainerdRestartShimGone: when the shim died too while containerd was away, nobody knows
// the exit: once containerd is back (it cleans up after the dead shim), the container is reported
// terminated with exit code 255, reason ContainerStatusUnknown, and the restart policy applies.
func TestContainerdRestartShimGone(t *testing.T) {
	own, h := newOwnContainerd(t, fastBackoff)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "shimgone", RestartPolicy: podlife.RestartOnFailure, TerminationGracePeriod: ptr(5 * time.Second),
		Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	shims := podlifetest.ShimPIDs(h.ns)
	if len(shims) != 1 {
		t.Fatalf("shims of the test's namespace: %v, want 1", shims)
	}
	own.kill()
	waitEvent(t, ctx, pod, "", reasons.ContainerdUnavailable)
	if err := syscall.Kill(shims[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for len(podlifetest.ShimPIDs(h.ns)) > 0 && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
	own.start()
	ex := waitEvent(t, ctx, pod, "app", reasons.Exited)
	if !strings.HasSuffix(ex.Message, "exited with code 255") {
		t.Errorf("exit %q, want code 255 (unknown)", ex.Message)
	}
	st, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool {
		return s.ContainerStatuses[0].RestartCount == 1 && s.ContainerStatuses[0].State.Running != nil
	})
	if err != nil {
		t.Fatalf("not restarted: %v; status %+v", err, st)
	}
	if lt := st.ContainerStatuses[0].LastState.Terminated; lt == nil || lt.ExitCode != 255 || lt.Reason != reasons.ContainerStatusUnknown {
		t.Errorf("lastState %+v, want exit code 255, reason %s", lt, reasons.ContainerStatusUnknown)
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
}

// TestPrivateContainerdRevived: the state dir's private containerd (no address configured, none
// at the system socket) is SIGKILLed under a live Runtime with a pod running. podlife starts it
// again by itself on the same root and state (no test hand in it): a new containerd process
// serves the same socket, the container keeps its process and restart count, no exit is
// reported, the Unavailable and Recovered events come, and Stop and Remove work afterwards.
func TestPrivateContainerdRevived(t *testing.T) {
	h, ctrdDir := privateHarness(t, testContainerdBinary(t))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	before, err := daemon.Lookup(ctrdDir)
	if err != nil {
		t.Fatalf("Lookup: %v", err)
	}
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "revived", TerminationGracePeriod: ptr(10 * time.Second),
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", "touch /tmp/ready; " + loopForever},
			ReadinessProbe: execProbe("test -f /tmp/ready", 100*time.Millisecond, 1),
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := pod.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}
	app, _ := pod.Container("app")
	c, err := client.New(before.Address, client.WithDefaultNamespace(h.ns))
	if err != nil {
		t.Fatal(err)
	}
	task, err := func() (client.Task, error) {
		ctr, err := c.LoadContainer(ctx, app.ID())
		if err != nil {
			return nil, err
		}
		return ctr.Task(ctx, nil)
	}()
	c.Close()
	if err != nil {
		t.Fatalf("task of %s: %v", app.ID(), err)
	}
	pid := task.Pid()
	start := procStart(pid)
	evs := collect(ctx, pod)

	if err := syscall.Kill(before.PID, syscall.SIGKILL); err != nil {
		t.Fatalf("kill the private containerd: %v", err)
	}
	waitEvent(t, ctx, pod, "", reasons.ContainerdUnavailable)
	waitEvent(t, ctx, pod, "", reasons.ContainerdRecovered)
	after, err := daemon.Lookup(ctrdDir)
	if err != nil || after.PID == before.PID || after.Address != before.Address {
		t.Fatalf("after the recovery: Lookup = %+v, %v; want a new containerd (not pid %d) at %s", after, err, before.PID, before.Address)
	}
	if procStart(pid) != start {
		t.Fatalf("the container's process %d did not survive the containerd restart", pid)
	}
	if err := pod.WaitReady(ctx); err != nil {
		t.Fatalf("not ready after the recovery: %v", err)
	}
	if res, err := execOutput(ctx, pod, "app", []string{"echo", "back"}); err != nil || strings.TrimSpace(string(res.Output)) != "back" {
		t.Errorf("exec after the recovery: %+v, %v", res, err)
	}
	if cs := pod.Status().ContainerStatuses[0]; cs.RestartCount != 0 || cs.State.Running == nil {
		t.Errorf("container %+v: want the same instance running, no restart", cs)
	}
	for _, reason := range []podlife.Reason{reasons.Exited, reasons.Killing, reasons.BackOff} {
		if e := evs.with(reason); len(e) > 0 {
			t.Errorf("%s events: %v", reason, e)
		}
	}
	if err := pod.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if procStart(pid) != "" {
		t.Errorf("process %d still runs after Stop", pid)
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
}

// loopingPod runs a one-container pod ("app", looping until its TERM trap) on own's containerd,
// and returns it with the container's host PID and that process's start time.
func loopingPod(ctx context.Context, t *testing.T, own *ownContainerd, h *harness, name string, grace time.Duration) (*podlife.Pod, uint32, string) {
	t.Helper()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: name, TerminationGracePeriod: ptr(grace),
		Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	app, _ := pod.Container("app")
	pid := own.taskPID(t, h.ns, app.ID())
	return pod, pid, procStart(pid)
}

// slowHostProbe gives a liveness probe a timeout long enough that an exec slowed by a loaded
// host (seen once at load 50: over 2 s after containerd came back) is not a failure: what
// the test checks is that a failure while containerd is away does not count, and that one is
// immediate (ErrUnavailable), not a timeout.
func slowHostProbe(p *probe.Spec) *probe.Spec {
	p.Timeout = budget(20 * time.Second)
	return p
}
