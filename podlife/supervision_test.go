package podlife_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/conditions"
	"github.com/podlife/podlife/podlife/reasons"
	"github.com/podlife/podlife/probe"
)

// fastBackoff keeps crash-loop tests short.
func fastBackoff(c *podlife.Config) {
	c.Backoff = podlife.Backoff{Initial: 300 * time.Millisecond, Max: 1200 * time.Millisecond, ResetAfter: time.Minute}
}

func execProbe(cmd string, period time.Duration, failures int) *probe.Spec {
	return &probe.Spec{Prober: probe.Exec("/bin/sh", "-c", cmd), Period: period, Timeout: budget(2 * time.Second), FailureThreshold: failures}
}

func events(p *podlife.Pod, container string, reason podlife.Reason) []podlife.Event {
	var out []podlife.Event
	for _, e := range p.Events() {
		if e.Reason == reason && (container == "" || e.Container == container) {
			out = append(out, e)
		}
	}
	return out
}

// A failing liveness probe kills the container (Killing with the kubelet's message) and it is
// restarted: restartCount and lastState say so, and Unhealthy events were recorded.
func TestLivenessRestarts(t *testing.T) {
	h := newHarness(t, fastBackoff)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "liveness", TerminationGracePeriod: ptr(3 * time.Second),
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage,
			// Healthy for about a second, then not.
			Command:       []string{"/bin/sh", "-c", "touch /tmp/healthy; (sleep 1; rm /tmp/healthy) & " + loopForever},
			LivenessProbe: execProbe("test -f /tmp/healthy", 200*time.Millisecond, 2),
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	st, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool { return s.ContainerStatuses[0].RestartCount >= 1 })
	if err != nil {
		t.Fatalf("no restart: %v; events %v", err, pod.Events())
	}
	cs := st.ContainerStatuses[0]
	if cs.LastState.Terminated == nil {
		t.Errorf("lastState %+v, want the killed instance's termination", cs.LastState)
	}
	kill := events(pod, "app", reasons.Killing)
	if len(kill) == 0 || kill[0].Message != "Container app failed liveness probe, will be restarted" {
		t.Errorf("Killing events %v", kill)
	}
	if u := events(pod, "app", reasons.Unhealthy); len(u) < 2 || u[0].Message[:len("Liveness probe failed")] != "Liveness probe failed" {
		t.Errorf("Unhealthy events %v, want one per failing run (threshold 2)", u)
	}
	if _, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool { return s.ContainerStatuses[0].State.Running != nil }); err != nil {
		t.Errorf("not running again after the restart: %v", err)
	}
	// Logs of the earlier attempt are kept beside the current one.
	c, _ := pod.Container("app")
	if filepath.Base(podlife.LogPath(c)) == "0.log" {
		t.Errorf("log path %s still the first attempt's", podlife.LogPath(c))
	}
}

// Readiness flips Ready both ways without restarting anything; ContainersReady and Ready follow.
func TestReadinessFlips(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "readiness", TerminationGracePeriod: ptr(3 * time.Second),
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever},
			ReadinessProbe: execProbe("test -f /tmp/ready", 100*time.Millisecond, 1),
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	st := pod.Status()
	if st.ContainerStatuses[0].Ready || st.Condition(conditions.PodReady).Status != "False" {
		t.Fatalf("ready before the probe passed: %+v", st)
	}
	for i, step := range []struct {
		cmd   string
		ready bool
	}{{"touch /tmp/ready", true}, {"rm /tmp/ready", false}, {"touch /tmp/ready", true}} {
		if _, err := execOutput(ctx, pod, "app", []string{"/bin/sh", "-c", step.cmd}); err != nil {
			t.Fatal(err)
		}
		st, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool { return s.ContainerStatuses[0].Ready == step.ready })
		if err != nil {
			t.Fatalf("step %d: ready never became %v", i, step.ready)
		}
		if got := st.Condition(conditions.ContainersReady).Status; got != map[bool]conditions.Status{true: "True", false: "False"}[step.ready] {
			t.Errorf("step %d: ContainersReady %s", i, got)
		}
		if st.ContainerStatuses[0].RestartCount != 0 {
			t.Errorf("readiness restarted the container")
		}
	}
}

// A startup probe gates the others: started stays false, no liveness probe runs, until it passes.
func TestStartupProbeGates(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "startup", TerminationGracePeriod: ptr(3 * time.Second),
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage,
			Command:       []string{"/bin/sh", "-c", "(sleep 1; touch /tmp/started) & " + loopForever},
			StartupProbe:  execProbe("test -f /tmp/started", 100*time.Millisecond, 100),
			LivenessProbe: execProbe("echo liveness-ran >> /tmp/liveness; test -f /tmp/started", 100*time.Millisecond, 1),
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if st := pod.Status().ContainerStatuses[0]; st.Started || st.Ready {
		t.Fatalf("started/ready before the startup probe passed: %+v", st)
	}
	if _, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool { return s.ContainerStatuses[0].Started }); err != nil {
		t.Fatalf("never started: %v", err)
	}
	for _, e := range events(pod, "app", reasons.Unhealthy) {
		if e.Message[:8] != "Startup " {
			t.Errorf("a non-startup probe failed before the container started: %v", e)
		}
	}
	if n := len(events(pod, "app", reasons.Unhealthy)); n == 0 {
		t.Errorf("no Unhealthy startup events while the file was missing")
	}
	if got := pod.Status().ContainerStatuses[0].RestartCount; got != 0 {
		t.Errorf("restartCount %d", got)
	}
}

// Crash-loop back-off: the first restart is immediate, then the configured delays, doubling, as
// measured between an exit and the next start.
func TestCrashLoopBackOff(t *testing.T) {
	h := newHarness(t, fastBackoff)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "crashloop", TerminationGracePeriod: ptr(2 * time.Second),
		Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", "exit 3"}}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	st, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool { return s.ContainerStatuses[0].RestartCount >= 4 })
	if err != nil {
		t.Fatalf("restarts: %v", err)
	}
	exits, starts := events(pod, "app", reasons.Exited), events(pod, "app", reasons.Started)
	want := []time.Duration{0, 300 * time.Millisecond, 600 * time.Millisecond, 1200 * time.Millisecond}
	for i, w := range want {
		if i+1 >= len(starts) || i >= len(exits) {
			break
		}
		gap := starts[i+1].Time.Sub(exits[i].Time)
		t.Logf("restart %d: %v after the exit (back-off %v)", i+1, gap, w)
		if gap < w || gap > w+10*time.Second {
			t.Errorf("restart %d came %v after the exit, want about %v", i+1, gap, w)
		}
	}
	if len(events(pod, "app", reasons.BackOff)) == 0 {
		t.Errorf("no BackOff event")
	}
	if st.ContainerStatuses[0].LastState.Terminated == nil || st.ContainerStatuses[0].LastState.Terminated.ExitCode != 3 {
		t.Errorf("lastState %+v, want exit 3", st.ContainerStatuses[0].LastState)
	}
	if st.Phase != podlife.PhaseRunning {
		t.Errorf("phase %s for a crash-looping pod under Always, want Running (as the kubelet)", st.Phase)
	}
}

// A container killed by the OOM killer (its own memory limit) terminates with reason OOMKilled.
func TestOOMKilled(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "oom", RestartPolicy: podlife.RestartNever, TerminationGracePeriod: ptr(2 * time.Second),
		Containers: []podlife.ContainerSpec{{
			Name: "hog", Image: testImage,
			// tail keeps a line that never ends: it grows until the 16 MiB limit kills it.
			Command: []string{"/bin/sh", "-c", "head -c 256m /dev/zero | tail"},
			OCIHook: func(_ context.Context, s *specs.Spec) error {
				limit := int64(16 << 20)
				if s.Linux.Resources == nil {
					s.Linux.Resources = &specs.LinuxResources{}
				}
				if s.Linux.Resources.Memory == nil {
					s.Linux.Resources.Memory = &specs.LinuxMemory{}
				}
				s.Linux.Resources.Memory.Limit, s.Linux.Resources.Memory.Swap = &limit, &limit
				return nil
			},
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	st, err := pod.Wait(ctx)
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if tt := st.ContainerStatuses[0].State.Terminated; tt == nil || tt.Reason != reasons.OOMKilled || tt.ExitCode == 0 {
		t.Errorf("terminated %+v, want reason OOMKilled", st.ContainerStatuses[0].State)
	}
	if st.Phase != podlife.PhaseFailed {
		t.Errorf("phase %s, want Failed", st.Phase)
	}
}

// httpGet and tcpSocket probes from the host to the pod IP, passing and failing.
func TestNetworkProbes(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	fast := func(p probe.Prober) *probe.Spec {
		return &probe.Spec{Prober: p, Period: 100 * time.Millisecond, Timeout: time.Second, FailureThreshold: 1}
	}
	web := []string{"/bin/sh", "-c", "mkdir -p /www && echo ok > /www/index.html && trap 'exit 0' TERM; httpd -f -p 8080 -h /www & wait"}
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "netprobes", TerminationGracePeriod: ptr(3 * time.Second),
		Containers: []podlife.ContainerSpec{
			{Name: "good", Image: testImage, Command: web,
				// Tolerant too: one slow answer on a loaded machine must not flip it.
				ReadinessProbe: &probe.Spec{Prober: probe.HTTPGet(8080, "/index.html"), Period: 100 * time.Millisecond, Timeout: 5 * time.Second, FailureThreshold: 10},
				// Tolerant: httpd may take a moment to listen.
				LivenessProbe: &probe.Spec{Prober: probe.TCPSocket(8080), Period: 100 * time.Millisecond, FailureThreshold: 30}},
			{Name: "http404", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever},
				ReadinessProbe: fast(probe.HTTPGet(8080, "/missing"))},
			{Name: "tcpclosed", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever},
				ReadinessProbe: fast(probe.TCPSocket(9999))},
		},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if _, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool { return s.ContainerStatuses[0].Ready }); err != nil {
		t.Fatalf("httpGet readiness never passed: %v", err)
	}
	// The failing ones: Unhealthy events with the kubelet's messages, never ready. Probes
	// that ran before httpd listened failed with "connection refused"; once it serves, the
	// message is the kubelet's for a 404.
	want404 := "Readiness probe failed: HTTP probe failed with statuscode: 404"
	waitEventMatch(t, ctx, pod, "http404 Unhealthy event for a 404", func(e podlife.Event) bool {
		return e.Container == "http404" && e.Reason == reasons.Unhealthy && e.Message == want404
	})
	waitEvent(t, ctx, pod, "tcpclosed", reasons.Unhealthy)
	st := pod.Status()
	if st.ContainerStatuses[1].Ready || st.ContainerStatuses[2].Ready || st.Condition(conditions.PodReady).Status != "False" {
		t.Errorf("failing probes but ready: %+v", st)
	}
	if !st.ContainerStatuses[0].Ready || st.ContainerStatuses[0].RestartCount != 0 {
		t.Errorf("the good container: ready %v, %d restarts (its tcpSocket liveness passes)", st.ContainerStatuses[0].Ready, st.ContainerStatuses[0].RestartCount)
	}
}
