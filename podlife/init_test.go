package podlife_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/conditions"
	"github.com/podlife/podlife/podlife/reasons"
	"github.com/podlife/podlife/podlife/startpolicy"
)

// Init containers run one at a time, in order, before the app; the conditions follow.
func TestInitContainersInOrder(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(time.Minute))
	defer cancel()
	const f = "/shared/message"
	step := func(who string) podlife.ContainerSpec {
		return podlife.ContainerSpec{Name: who, Image: testImage, VolumeMounts: sharedMount,
			Command: []string{"/bin/sh", "-c", stampCmd(f, who, "begin") + "; sleep 0.3; " + stampCmd(f, who, "end")}}
	}
	app := step("app")
	app.Command = []string{"/bin/sh", "-c", stampCmd(f, "app", "begin") + "; " + loopForever}
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "inits", Volumes: sharedVolume(), TerminationGracePeriod: ptr(3 * time.Second),
		InitContainers: []podlife.ContainerSpec{step("init1"), step("init2")},
		Containers:     []podlife.ContainerSpec{app},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	lines := waitStamped(t, filepath.Join(pod.Sandbox().Dir(), "volumes", "shared", "message"), "init1", "init2", "app")
	i1end, _ := first(lines, "init1", "end")
	i2begin, _ := first(lines, "init2", "begin")
	i2end, _ := first(lines, "init2", "end")
	a, _ := first(lines, "app", "begin")
	if i2begin.at < i1end.at || a.at < i2end.at {
		t.Errorf("out of order: init1 end %.2f, init2 begin %.2f, init2 end %.2f, app %.2f", i1end.at, i2begin.at, i2end.at, a.at)
	}
	st := pod.Status()
	for _, c := range st.InitContainerStatuses {
		if tt := c.State.Terminated; tt == nil || tt.ExitCode != 0 || tt.Reason != reasons.Completed {
			t.Errorf("init %s: %+v, want terminated Completed", c.Name, c.State)
		}
	}
	if st.Condition(conditions.PodInitialized).Status != "True" || st.Phase != podlife.PhaseRunning {
		t.Errorf("after the inits: phase %s, Initialized %+v", st.Phase, st.Condition(conditions.PodInitialized))
	}
}

// A failing init container fails the pod under Never (the app never starts; nothing is removed),
// and is restarted under back-off until it succeeds under Always.
func TestInitContainerFailure(t *testing.T) {
	h := newHarness(t, fastBackoff)
	ctx, cancel := context.WithTimeout(context.Background(), budget(time.Minute))
	defer cancel()
	app := podlife.ContainerSpec{Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}}
	t.Run("Never", func(t *testing.T) {
		pod, err := h.rt.Run(ctx, podlife.PodSpec{
			Name: "init-never", RestartPolicy: podlife.RestartNever, TerminationGracePeriod: ptr(3 * time.Second),
			InitContainers: []podlife.ContainerSpec{{Name: "init", Image: testImage, Command: []string{"/bin/sh", "-c", "exit 7"}}},
			Containers:     []podlife.ContainerSpec{app},
		})
		if err != nil {
			t.Fatalf("Run: %v (an init failure is the pod's outcome, not a Run error)", err)
		}
		st, err := pod.Wait(ctx)
		if err != nil || st.Phase != podlife.PhaseFailed {
			t.Fatalf("phase %s (%v), want Failed", st.Phase, err)
		}
		if st.ContainerStatuses[0].State.Waiting == nil || len(events(pod, "app", reasons.Started)) != 0 {
			t.Errorf("app %+v: it must never start", st.ContainerStatuses[0].State)
		}
		if c := st.Condition(conditions.PodInitialized); c.Status != "False" || c.Reason != "ContainersNotInitialized" {
			t.Errorf("Initialized %+v", c)
		}
	})
	t.Run("Always", func(t *testing.T) {
		pod, err := h.rt.Run(ctx, podlife.PodSpec{
			Name: "init-always", Volumes: sharedVolume(), TerminationGracePeriod: ptr(3 * time.Second),
			// Fails the first two times, then succeeds.
			InitContainers: []podlife.ContainerSpec{{Name: "init", Image: testImage, VolumeMounts: sharedMount,
				Command: []string{"/bin/sh", "-c", "echo x >> /shared/tries; test $(wc -l < /shared/tries) -ge 3"}}},
			Containers: []podlife.ContainerSpec{app},
		})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		st := pod.Status()
		if st.InitContainerStatuses[0].RestartCount != 2 || st.Phase != podlife.PhaseRunning || st.ContainerStatuses[0].State.Running == nil {
			t.Errorf("init restarts %d, phase %s, app %+v: want 2 restarts then the app running",
				st.InitContainerStatuses[0].RestartCount, st.Phase, st.ContainerStatuses[0].State)
		}
	})
}

// A native sidecar: the app starts only once the sidecar's startup probe passed; on a Job-like
// pod (Never) the app's exit completes the pod, and the sidecar is stopped after the app.
func TestSidecarGatingAndJobCompletion(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(time.Minute))
	defer cancel()
	const f = "/shared/message"
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "sidecar-job", RestartPolicy: podlife.RestartNever, Volumes: sharedVolume(), TerminationGracePeriod: ptr(10 * time.Second),
		InitContainers: []podlife.ContainerSpec{{
			Name: "proxy", Image: testImage, VolumeMounts: sharedMount, RestartPolicy: podlife.RestartAlways,
			Command: []string{"/bin/sh", "-c", "on_term() { " + stampCmd(f, "proxy", "term") + "; exit 0; }; trap on_term TERM; " +
				"(sleep 1; touch /tmp/up; " + stampCmd(f, "proxy", "up") + ") & while :; do sleep 0.1; done"},
			StartupProbe: execProbe("test -f /tmp/up", 100*time.Millisecond, 100),
		}},
		Containers: []podlife.ContainerSpec{{
			Name: "job", Image: testImage, VolumeMounts: sharedMount,
			Command: []string{"/bin/sh", "-c", stampCmd(f, "job", "begin") + "; sleep 0.5; " + stampCmd(f, "job", "end")},
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	st, err := pod.Wait(ctx)
	if err != nil || st.Phase != podlife.PhaseSucceeded {
		t.Fatalf("phase %s (%v), want Succeeded: the sidecar's exit code never counts", st.Phase, err)
	}
	if err := pod.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	lines := readStamped(t, filepath.Join(pod.Sandbox().Dir(), "volumes", "shared", "message"))
	up, _ := first(lines, "proxy", "up")
	begin, _ := first(lines, "job", "begin")
	end, _ := first(lines, "job", "end")
	term, ok := first(lines, "proxy", "term")
	if begin.at < up.at {
		t.Errorf("job began at %.2f before the sidecar was up at %.2f", begin.at, up.at)
	}
	if !ok || term.at < end.at {
		t.Errorf("sidecar stopped at %.2f (%v), want after the job ended at %.2f", term.at, ok, end.at)
	}
}

// DependencyOrder: b starts when a is ready; c (no dependency) starts at once.
func TestDependencyOrder(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(time.Minute))
	defer cancel()
	const f = "/shared/message"
	mk := func(name string) podlife.ContainerSpec {
		return podlife.ContainerSpec{Name: name, Image: testImage, VolumeMounts: sharedMount,
			Command: []string{"/bin/sh", "-c", stampCmd(f, name, "begin") + "; " + loopForever}}
	}
	a, b, c := mk("a"), mk("b"), mk("c")
	// a is ready only once c has begun (by construction: were c to wait for a, the pod would
	// never start), and 1 s after that (b's wait is seen).
	a.Command = []string{"/bin/sh", "-c", stampCmd(f, "a", "begin") + "; (until grep -q ' c begin' " + f + "; do sleep 0.1; done; sleep 1; touch /tmp/ready; " + stampCmd(f, "a", "ready") + ") & " + loopForever}
	a.ReadinessProbe = execProbe("test -f /tmp/ready", 100*time.Millisecond, 1)
	b.DependsOn = []startpolicy.Dependency{{Container: "a", Condition: startpolicy.ContainerReady}}
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "deps", StartPolicy: startpolicy.DependencyOrder(), Volumes: sharedVolume(), TerminationGracePeriod: ptr(3 * time.Second),
		Containers: []podlife.ContainerSpec{b, a, c},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	lines := waitStamped(t, filepath.Join(pod.Sandbox().Dir(), "volumes", "shared", "message"), "a", "b", "c")
	ready, _ := first(lines, "a", "ready")
	bBegin, _ := first(lines, "b", "begin")
	cBegin, _ := first(lines, "c", "begin")
	aBegin, _ := first(lines, "a", "begin")
	if bBegin.at < ready.at {
		t.Errorf("b began at %.2f before a was ready at %.2f", bBegin.at, ready.at)
	}
	if cBegin.at > ready.at {
		t.Errorf("c began at %.2f, after a was ready at %.2f (a began at %.2f): it has no dependency and should not wait", cBegin.at, ready.at, aBegin.at)
	}
	if e := events(pod, "b", reasons.Started); len(e) == 1 {
		readyAt := eventTime(t, pod, "a", reasons.Started)
		t.Logf("b started %v after a started (a's readiness gates it)", e[0].Time.Sub(readyAt))
	}
}

// activeDeadlineSeconds: the pod is stopped and ends Failed with reason DeadlineExceeded.
func TestActiveDeadline(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(time.Minute))
	defer cancel()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "deadline", ActiveDeadline: ptr(time.Second), TerminationGracePeriod: ptr(3 * time.Second),
		Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	st, err := pod.Wait(ctx)
	if err != nil || st.Phase != podlife.PhaseFailed || st.Reason != reasons.DeadlineExceeded {
		t.Fatalf("phase %s reason %q (%v), want Failed DeadlineExceeded", st.Phase, st.Reason, err)
	}
	// On a slow host the deadline can fire before the container started: then it never ran
	// (no Terminated state), and only the pod's end is checked.
	if term := st.ContainerStatuses[0].State.Terminated; term != nil {
		if d := term.FinishedAt.Sub(st.StartTime); d < time.Second {
			t.Errorf("stopped %v after the start, before the 1 s deadline", d)
		}
	} else if st.ContainerStatuses[0].State.Running != nil {
		t.Errorf("container still running after the pod failed: %+v", st.ContainerStatuses[0].State)
	}
	if len(events(pod, "", reasons.DeadlineExceeded)) != 1 {
		t.Errorf("no DeadlineExceeded event")
	}
}

// Phase and conditions at each step of a pod's life, as the kubelet computes them.
func TestPhaseAndConditionTransitions(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(time.Minute))
	defer cancel()
	pod, err := h.rt.Start(ctx, podlife.PodSpec{
		Name: "transitions", TerminationGracePeriod: ptr(3 * time.Second),
		InitContainers: []podlife.ContainerSpec{{Name: "init", Image: testImage, Command: []string{"/bin/sh", "-c", "sleep 0.5"}}},
		Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever},
			ReadinessProbe: execProbe("test -f /tmp/ready", 100*time.Millisecond, 1)}},
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	type want struct {
		phase                      podlife.Phase
		sandbox, init, cready, rdy conditions.Status
	}
	check := func(step string, st podlife.PodStatus, w want) {
		t.Helper()
		got := want{st.Phase, st.Condition(conditions.PodReadyToStartContainers).Status, st.Condition(conditions.PodInitialized).Status,
			st.Condition(conditions.ContainersReady).Status, st.Condition(conditions.PodReady).Status}
		if got != w {
			t.Errorf("%s: phase/PodReadyToStartContainers/Initialized/ContainersReady/Ready = %v, want %v", step, got, w)
		}
	}
	// While the init container runs.
	st, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool { return s.InitContainerStatuses[0].State.Running != nil })
	if err != nil {
		t.Fatal(err)
	}
	check("init running", st, want{podlife.PhasePending, "True", "False", "False", "False"})
	if st.ContainerStatuses[0].State.Waiting == nil || st.ContainerStatuses[0].State.Waiting.Reason != reasons.PodInitializing {
		t.Errorf("app while initializing: %+v, want waiting PodInitializing", st.ContainerStatuses[0].State)
	}
	// App running, not ready.
	st, err = pod.WaitFor(ctx, func(s podlife.PodStatus) bool { return s.ContainerStatuses[0].State.Running != nil })
	if err != nil {
		t.Fatal(err)
	}
	check("app running", st, want{podlife.PhaseRunning, "True", "True", "False", "False"})
	if c := st.Condition(conditions.ContainersReady); c.Reason != "ContainersNotReady" || c.Message != "containers with unready status: [app]" {
		t.Errorf("ContainersReady %+v", c)
	}
	// Ready.
	if _, err := execOutput(ctx, pod, "app", []string{"touch", "/tmp/ready"}); err != nil {
		t.Fatal(err)
	}
	if err := pod.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	check("ready", pod.Status(), want{podlife.PhaseRunning, "True", "True", "True", "True"})
	// Stopped: the loop exits 0 on SIGTERM.
	if err := pod.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	st = pod.Status()
	check("stopped", st, want{podlife.PhaseSucceeded, "False", "True", "False", "False"})
	if r := st.Condition(conditions.PodReady).Reason; r != "PodCompleted" {
		t.Errorf("Ready reason after success: %q, want PodCompleted", r)
	}
}
