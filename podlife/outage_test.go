package podlife_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/podlifetest"
	"github.com/podlife/podlife/podlife/reasons"
)

// TestContainerdLostDuringRun: containerd is SIGKILLed while Run is in flight (from the first
// container's postStart hook, so the second container's create or start is under way), and
// started again by the test 300 ms later. Run must return within a bounded time (not wait out a
// one-minute cleanup): either the pod runs, or an error that wraps ErrUnavailable, and the pod
// is then fully removed once containerd is back (the harness's leak check runs at cleanup
// against the test's containerd).
func TestContainerdLostDuringRun(t *testing.T) {
	own, h := newOwnContainerd(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	restarted := make(chan struct{})
	kill := hook.HandlerFunc(func(ctx context.Context, _ hook.Target) error {
		own.kill()
		go func() {
			defer close(restarted)
			time.Sleep(300 * time.Millisecond)
			own.start()
		}()
		return nil
	})
	begin := time.Now()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "inflight", TerminationGracePeriod: ptr(5 * time.Second),
		Containers: []podlife.ContainerSpec{
			{Name: "a", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}, PostStart: kill},
			{Name: "b", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}},
		},
	})
	took := time.Since(begin)
	<-restarted
	t.Logf("Run with containerd lost in flight took %v: err %v", took, err)
	if took > 30*time.Second {
		t.Errorf("Run took %v with containerd back after 300 ms, want it bounded", took)
	}
	if err != nil {
		if !errors.Is(err, podlife.ErrUnavailable) {
			t.Errorf("Run error %v, want it to wrap ErrUnavailable", err)
		}
		// Run returned as soon as containerd was found away; the removal completes once it is
		// back.
		waitForgotten(t, h, "inflight")
		return
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
}

// TestPrivateContainerdSlowRevive: the private containerd dies and, started again, takes longer
// to serve than one reconnection attempt lasts (6 s here: a loaded host, many shims to reload;
// a wrapper script delays it). The Runtime must let it come up and recover, not kill each new
// daemon halfway and try again for ever.
func TestPrivateContainerdSlowRevive(t *testing.T) {
	if env.skip != "" {
		t.Skip(env.skip)
	}
	bin := testContainerdBinary(t)
	wrapDir := t.TempDir()
	slow := filepath.Join(wrapDir, "slow")
	wrapper := filepath.Join(wrapDir, "containerd")
	script := "#!/bin/sh\nif [ -e " + slow + " ]; then sleep 6; fi\nexec " + bin + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// containerd finds its shim beside its binary first (the daemon puts that dir first in
	// PATH): the wrapper's dir must have the shim of the same containerd, not PATH's (Debian's
	// 1.6 shim cannot serve a 2.x containerd).
	if shim := filepath.Join(filepath.Dir(bin), "containerd-shim-runc-v2"); fileExists(shim) {
		if err := os.Symlink(shim, filepath.Join(wrapDir, "containerd-shim-runc-v2")); err != nil {
			t.Fatal(err)
		}
	}
	h, ctrdDir := privateHarness(t, wrapper)
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	if !h.rt.PrivateDaemon() {
		t.Fatal("the Runtime does not use the private containerd")
	}
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "slowrevive", TerminationGracePeriod: ptr(5 * time.Second),
		Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	before, err := daemon.Lookup(ctrdDir)
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(ctx, pod)
	if err := os.WriteFile(slow, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// Runs first when the test fails: let the next revive be fast, so that the cleanup can
	// remove the pod.
	defer os.Remove(slow)
	if err := syscall.Kill(before.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, ctx, pod, "", reasons.ContainerdUnavailable)
	killed := time.Now()
	rctx, rcancel := context.WithTimeout(ctx, 40*time.Second)
	defer rcancel()
	waitEvent(t, rctx, pod, "", reasons.ContainerdRecovered)
	took := time.Since(killed)
	t.Logf("recovered %v after the kill (the new daemon waits 6 s before it starts)", took)
	if took < 6*time.Second {
		t.Errorf("recovered after %v, before the slow daemon could serve (6 s)", took)
	}
	_ = os.Remove(slow)
	if e := evs.with(reasons.Exited); len(e) > 0 {
		t.Errorf("Exited events: %v", e)
	}
	if err := pod.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
}

// reconnectGoroutines returns the stacks of this process's goroutines that are in podlife's
// reconnection machinery (the reconnect loop, an exit watcher following a task across an
// outage, a call waiting for containerd to answer again).
func reconnectGoroutines() []string {
	buf := make([]byte, 1<<22)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, fn := range []string{"conn.(*Watch).reconnect", "conn.(*Watch).tryConnect", "attempt.AwaitExit",
			"conn.(*Watch).WaitConnected", "attempt.shimWait", "conn.(*Watch).Retry"} {
			if strings.Contains(g, fn+"(") {
				out = append(out, g)
				break
			}
		}
	}
	return out
}

// TestCloseDuringOutage: a Runtime closed while containerd is away (a Stop of its pod waiting for
// containerd, the exit watcher asking the shim) returns promptly and ends every goroutine of the
// reconnection machinery; the pod keeps running, and once containerd is back another Runtime
// removes it.
func TestCloseDuringOutage(t *testing.T) {
	own, h := newOwnContainerd(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	rt := h.another(t)
	pod, err := rt.Run(ctx, podlife.PodSpec{
		Name: "closed", TerminationGracePeriod: ptr(30 * time.Second),
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", "touch /tmp/ready; " + loopForever},
			ReadinessProbe: execProbe("test -f /tmp/ready", 100*time.Millisecond, 1),
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	removed := false
	defer func() {
		if !removed {
			rctx, rcancel := context.WithTimeout(context.Background(), budget(time.Minute))
			defer rcancel()
			if err := removePod(rctx, h.rt, "closed"); err != nil {
				t.Errorf("cleanup: Pod.Remove: %v", err)
			}
		}
	}()
	app, _ := pod.Container("app")
	pid := own.taskPID(t, h.ns, app.ID())
	start := procStart(pid)

	own.kill()
	waitEvent(t, ctx, pod, "", reasons.ContainerdUnavailable)
	stopErr := make(chan error, 1)
	go func() { stopErr <- pod.Stop(ctx) }()
	time.Sleep(200 * time.Millisecond) // the Stop is waiting for containerd (lower bound only)
	begin := time.Now()
	if err := rt.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if took := time.Since(begin); took > 2*time.Second {
		t.Errorf("Close during the outage took %v", took)
	}
	select {
	case err := <-stopErr:
		t.Logf("Stop pending at Close returned %v", err)
	case <-time.After(5 * time.Second):
		t.Errorf("a Stop waiting for containerd did not return within 5 s of Close (grace period 30 s)")
		<-stopErr
	}
	var left []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if left = reconnectGoroutines(); len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, g := range left {
		t.Errorf("goroutine left 10 s after Close:\n%s", g)
	}
	if procStart(pid) != start {
		t.Errorf("the container's process %d is gone after Close", pid)
	}

	own.start()
	if err := removePod(ctx, h.rt, "closed"); err != nil {
		t.Fatalf("Pod.Remove from another Runtime after containerd is back: %v", err)
	}
	removed = true
	if procStart(pid) != "" {
		t.Errorf("process %d still runs after Pod.Remove", pid)
	}
}

// privateHarness returns a harness whose Runtime uses the private containerd of its state dir
// (started with binary), and that directory. Its cleanup, before the harness's, removes the pods
// of the harness's Runtime, checks that nothing is left in that containerd and stops it.
func privateHarness(t *testing.T, binary string) (*harness, string) {
	t.Helper()
	if env.skip != "" {
		t.Skip(env.skip)
	}
	h := newHarness(t, func(c *podlife.Config) {
		// The private containerd even where a system one serves: it is never touched.
		c.Address = ""
		c.Embedded = podlife.EmbeddedConfig{Binary: binary}
		*c = podlife.WithoutSystemContainerd(*c)
	})
	ctrdDir := filepath.Join(h.stateDir, "containerd")
	t.Cleanup(func() { // runs before the harness's cleanup (LIFO)
		ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
		defer cancel()
		for _, p := range h.rt.Pods() {
			if err := p.Remove(ctx); err != nil {
				t.Errorf("remove %s: %v", p.Name(), err)
			}
		}
		if info, err := daemon.Lookup(ctrdDir); err == nil {
			if c, err := client.New(info.Address); err == nil {
				leaks, err := podlifetest.ContainerdLeaks(namespaces.WithNamespace(ctx, h.ns), c, h.ns, testImage)
				if err != nil {
					t.Errorf("leak check: %v", err)
				}
				for _, l := range leaks {
					t.Errorf("leak in the private containerd: %s", l)
				}
				c.Close()
			}
		}
		if err := daemon.Shutdown(ctx, ctrdDir, nil); err != nil {
			t.Errorf("stop the private containerd: %v", err)
		}
	})
	if !h.rt.PrivateDaemon() {
		t.Fatal("the Runtime does not use the private containerd")
	}
	return h, ctrdDir
}

// TestPrivateContainerdRevivedByTwo: two Runtimes (as two processes sharing the state dir would
// be) each supervise a pod on the private containerd, which is SIGKILLed. Both reconnect at once:
// exactly one new containerd is started, both recover, no exit is reported.
func TestPrivateContainerdRevivedByTwo(t *testing.T) {
	h, ctrdDir := privateHarness(t, testContainerdBinary(t))
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	rt2 := h.another(t)
	spec := func(name string) podlife.PodSpec {
		return podlife.PodSpec{Name: name, TerminationGracePeriod: ptr(5 * time.Second),
			Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}}}}
	}
	p1, err := h.rt.Run(ctx, spec("one"))
	if err != nil {
		t.Fatalf("Run one: %v", err)
	}
	p2, err := rt2.Run(ctx, spec("two"))
	if err != nil {
		t.Fatalf("Run two: %v", err)
	}
	defer func() {
		if err := p2.Remove(ctx); err != nil {
			t.Errorf("remove two: %v", err)
		}
	}()
	ev1, ev2 := collect(ctx, p1), collect(ctx, p2)
	before, err := daemon.Lookup(ctrdDir)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(before.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, ctx, p1, "", reasons.ContainerdRecovered)
	waitEvent(t, ctx, p2, "", reasons.ContainerdRecovered)
	if procs := podlifetest.Processes(podlifetest.DaemonArgs(ctrdDir)); len(procs) != 1 {
		t.Errorf("containerd processes of %s after both recovered: %v, want exactly one", ctrdDir, procs)
	}
	for _, l := range []*eventLog{ev1, ev2} {
		if e := l.with(reasons.Exited); len(e) > 0 {
			t.Errorf("Exited events: %v", e)
		}
	}
	for _, p := range []*podlife.Pod{p1, p2} {
		if res, err := execOutput(ctx, p, "app", []string{"echo", "back"}); err != nil || strings.TrimSpace(string(res.Output)) != "back" {
			t.Errorf("exec in %s after the recovery: %+v, %v", p.Name(), res, err)
		}
	}
}

// TestRemoveDuringOutage: Remove while containerd is away waits for it (the call returns an error
// wrapping ErrUnavailable when its ctx ends) and kills nothing meanwhile; once containerd is back,
// the removal started before completes: the process is gone and nothing is left (the harness's
// leak check).
func TestRemoveDuringOutage(t *testing.T) {
	own, h := newOwnContainerd(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	pod, pid, start := loopingPod(ctx, t, own, h, "rmaway", 5*time.Second)
	evs := collect(ctx, pod)
	own.kill()
	waitEvent(t, ctx, pod, "", reasons.ContainerdUnavailable)
	rctx, rcancel := context.WithTimeout(ctx, time.Second)
	err := pod.Remove(rctx)
	rcancel()
	if !errors.Is(err, podlife.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Remove while containerd is away: %v, want ErrUnavailable and the deadline", err)
	}
	if procStart(pid) != start {
		t.Errorf("the container's process %d is gone while containerd is away", pid)
	}
	if e := evs.with(reasons.Removed); len(e) > 0 {
		t.Errorf("Removed while containerd is away: %v", e)
	}
	own.start()
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove after containerd is back: %v", err)
	}
	if procStart(pid) != "" {
		t.Errorf("process %d still runs after Remove", pid)
	}
	if ex := evs.with(reasons.Exited); len(ex) != 1 || !strings.HasSuffix(ex[0].Message, "exited with code 0") {
		t.Errorf("Exited events %v, want one, code 0 (its TERM trap)", ex)
	}
	if _, err := h.rt.Pod("rmaway"); !errors.Is(err, podlife.ErrNotFound) {
		t.Errorf("pod still registered after Remove: %v", err)
	}
}

// TestRunAfterPrivateContainerdStopped: daemon.StopPrivate stops the private containerd (no
// pod left) under an idle Runtime, as `podlife daemon stop` from another process would. The
// Runtime's next Run must not leave anything behind, and the private containerd must serve
// again afterwards (the Runtime revives it), so that a Run then succeeds.
func TestRunAfterPrivateContainerdStopped(t *testing.T) {
	h, ctrdDir := privateHarness(t, testContainerdBinary(t))
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	if err := daemon.StopPrivate(ctx, h.stateDir); err != nil {
		t.Fatalf("StopPrivate: %v", err)
	}
	spec := podlife.PodSpec{Name: "afterstop", TerminationGracePeriod: ptr(5 * time.Second),
		Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}}}}
	begin := time.Now()
	pod, err := h.rt.Run(ctx, spec)
	took := time.Since(begin)
	t.Logf("first Run after the stop: %v after %v", err, took)
	if err != nil && took > 2*time.Second {
		t.Errorf("the first Run after the stop failed after %v, want at once", took)
	}
	if err != nil {
		if !errors.Is(err, podlife.ErrUnavailable) {
			t.Errorf("first Run after the stop: %v, want success or an error wrapping ErrUnavailable", err)
		}
		// The Runtime revives the private containerd; a Run then works.
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			if pod, err = h.rt.Run(ctx, spec); err == nil || time.Now().After(deadline) {
				break
			}
		}
		if err != nil {
			t.Fatalf("Run 30 s after the private containerd was stopped: %v", err)
		}
	}
	if _, err := daemon.Lookup(ctrdDir); err != nil {
		t.Errorf("the private containerd does not serve after Run: %v", err)
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
}

// TestContainerdLostDuringRunStaysAway: as TestContainerdLostDuringRun, but containerd stays
// away until Run has returned (at most 20 s). Run must not wait for containerd to come back: it
// returns an error wrapping ErrUnavailable within a bounded time, and once containerd is back the
// pod's removal completes (nothing left: the harness's leak check).
// (Run used to wait for the failed pod's stop, whose kills wait for containerd: 22 s.)
func TestContainerdLostDuringRunStaysAway(t *testing.T) {
	own, h := newOwnContainerd(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	kill := hook.HandlerFunc(func(ctx context.Context, _ hook.Target) error {
		own.kill()
		return nil
	})
	// containerd stays away for 20 s (scaled on a slow host, as the bound on Run below, which
	// must stay under it).
	away, most := budget(20*time.Second), budget(15*time.Second)
	runDone := make(chan struct{})
	restarted := make(chan struct{})
	go func() {
		defer close(restarted)
		select {
		case <-runDone:
		case <-time.After(away):
		}
		own.start()
	}()
	begin := time.Now()
	_, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "away", TerminationGracePeriod: ptr(5 * time.Second),
		Containers: []podlife.ContainerSpec{
			{Name: "a", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}, PostStart: kill},
			{Name: "b", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}},
		},
	})
	took := time.Since(begin)
	close(runDone)
	<-restarted
	t.Logf("Run with containerd lost in flight and away: %v after %v", err, took)
	if took > most {
		t.Errorf("Run returned after %v with containerd away: it waited for containerd", took)
	}
	if err == nil || !errors.Is(err, podlife.ErrUnavailable) {
		t.Errorf("Run: %v, want an error wrapping ErrUnavailable", err)
	}
	// The removal goes on once containerd is back.
	waitForgotten(t, h, "away")
}

// waitForgotten waits (budget(a minute) at most) until the runtime no longer knows the pod: the removal
// of a pod whose start failed has completed.
func waitForgotten(t *testing.T, h *harness, name string) {
	t.Helper()
	for deadline := time.Now().Add(budget(time.Minute)); ; time.Sleep(100 * time.Millisecond) {
		if _, err := h.rt.Pod(name); errors.Is(err, podlife.ErrNotFound) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the failed pod %s is still registered %v after containerd came back", name, budget(time.Minute))
		}
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
