package podlife_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/conditions"
	"github.com/podlife/podlife/podlife/reasons"
	"github.com/podlife/podlife/probe"
)

// Ports of the kubelet's own e2e tests (kubernetes/kubernetes test/e2e/common/node
// init_container.go, container_probe.go, lifecycle_hook.go and test/e2e_node
// container_lifecycle_test.go), rewritten for podlife and scaled down from minutes to seconds.
// docs/kubelet-comparison.md ("Upstream e2e tests") maps each upstream test to its port here,
// to the existing test that already covers it, or says why it is skipped.

// statusOf returns the named container's status, init or regular.
func statusOf(t *testing.T, st podlife.PodStatus, name string) podlife.ContainerStatus {
	t.Helper()
	for _, c := range append(append([]podlife.ContainerStatus{}, st.InitContainerStatuses...), st.ContainerStatuses...) {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no status for container %q", name)
	return podlife.ContainerStatus{}
}

func shCmd(script string) []string { return []string{"/bin/sh", "-c", script} }

// recordEvents keeps every event of the pod from now on (Pod.Events keeps only the recent ones,
// and a pod whose probes fail on short periods has many).
func recordEvents(ctx context.Context, p *podlife.Pod) func(container string, reason podlife.Reason) []podlife.Event {
	var mu sync.Mutex
	var all []podlife.Event
	ch := p.Subscribe(ctx)
	go func() {
		for e := range ch {
			mu.Lock()
			all = append(all, e)
			mu.Unlock()
		}
	}()
	return func(container string, reason podlife.Reason) []podlife.Event {
		mu.Lock()
		defer mu.Unlock()
		var out []podlife.Event
		for _, e := range all {
			if e.Reason == reason && (container == "" || e.Container == container) {
				out = append(out, e)
			}
		}
		return out
	}
}

// init_container.go: the four InitContainer conformance tests, one pod each.
func TestE2EInitContainers(t *testing.T) {
	h := newHarness(t, fastBackoff)
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	initC := func(name, cmd string) podlife.ContainerSpec {
		return podlife.ContainerSpec{Name: name, Image: testImage, Command: []string{cmd}}
	}
	long := podlife.ContainerSpec{Name: "run1", Image: testImage, Command: shCmd(loopForever)}

	// Upstream: "should invoke init containers on a RestartNever pod".
	t.Run("RestartNever", func(t *testing.T) {
		pod, err := h.rt.Start(ctx, podlife.PodSpec{
			Name: "e2e-init-never", RestartPolicy: podlife.RestartNever,
			InitContainers: []podlife.ContainerSpec{initC("init1", "/bin/true"), initC("init2", "/bin/true")},
			Containers:     []podlife.ContainerSpec{initC("run1", "/bin/true")},
		})
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		st, err := pod.Wait(ctx)
		if err != nil || st.Phase != podlife.PhaseSucceeded {
			t.Fatalf("phase %s (%v), want Succeeded", st.Phase, err)
		}
		if c := st.Condition(conditions.PodInitialized); c.Status != "True" {
			t.Errorf("Initialized %+v, want True", c)
		}
		for _, c := range st.InitContainerStatuses {
			if !c.Ready || c.State.Terminated == nil || c.State.Terminated.ExitCode != 0 || c.RestartCount != 0 {
				t.Errorf("init %s: ready %v state %+v restarts %d, want ready, terminated 0, never restarted", c.Name, c.Ready, c.State, c.RestartCount)
			}
		}
	})

	// Upstream: "should invoke init containers on a RestartAlways pod".
	t.Run("RestartAlways", func(t *testing.T) {
		pod, err := h.rt.Start(ctx, podlife.PodSpec{
			Name: "e2e-init-always", TerminationGracePeriod: ptr(3 * time.Second),
			InitContainers: []podlife.ContainerSpec{initC("init1", "/bin/true"), initC("init2", "/bin/true")},
			Containers:     []podlife.ContainerSpec{long},
		})
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		st, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool {
			return s.Phase == podlife.PhaseRunning && s.ContainerStatuses[0].State.Running != nil
		})
		if err != nil {
			t.Fatalf("never running: %v; status %+v", err, st)
		}
		if c := st.Condition(conditions.PodInitialized); c.Status != "True" {
			t.Errorf("Initialized %+v, want True", c)
		}
		for _, c := range st.InitContainerStatuses {
			if !c.Ready || c.State.Terminated == nil || c.State.Terminated.ExitCode != 0 {
				t.Errorf("init %s: ready %v state %+v, want ready and terminated 0", c.Name, c.Ready, c.State)
			}
		}
		if err := pod.Remove(ctx); err != nil {
			t.Fatal(err)
		}
	})

	// Upstream: "should not start app containers if init containers fail on a RestartAlways pod":
	// the failing init1 is restarted (3 times here, under the test's short back-off), init2 and
	// the app wait in PodInitializing, the pod stays Pending.
	t.Run("FailAlways", func(t *testing.T) {
		pod, err := h.rt.Start(ctx, podlife.PodSpec{
			Name: "e2e-init-fail-always", TerminationGracePeriod: ptr(3 * time.Second),
			InitContainers: []podlife.ContainerSpec{initC("init1", "/bin/false"), initC("init2", "/bin/true")},
			Containers:     []podlife.ContainerSpec{long},
		})
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		st, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool {
			// Upstream fails at once if the app or init2 ever leaves waiting: so does this.
			for _, c := range append([]podlife.ContainerStatus{s.InitContainerStatuses[1]}, s.ContainerStatuses...) {
				if w := c.State.Waiting; w == nil || w.Reason != reasons.PodInitializing {
					t.Errorf("%s: %+v, want waiting PodInitializing while init1 fails", c.Name, c.State)
					return true
				}
			}
			return s.InitContainerStatuses[0].RestartCount >= 3
		})
		if err != nil {
			t.Fatalf("init1 not restarted 3 times: %v; status %+v", err, st)
		}
		i1 := st.InitContainerStatuses[0]
		if i1.LastState.Terminated == nil || i1.LastState.Terminated.ExitCode == 0 {
			t.Errorf("init1 lastState %+v, want a failed run", i1.LastState)
		}
		if st.Phase != podlife.PhasePending {
			t.Errorf("phase %s, want Pending", st.Phase)
		}
		c := st.Condition(conditions.PodInitialized)
		if c.Status != "False" || c.Reason != "ContainersNotInitialized" || c.Message != "containers with incomplete status: [init1 init2]" {
			t.Errorf("Initialized %+v, want False ContainersNotInitialized \"containers with incomplete status: [init1 init2]\"", c)
		}
		if e := append(events(pod, "init2", reasons.Started), events(pod, "run1", reasons.Started)...); len(e) > 0 {
			t.Errorf("started while init1 fails: %v", e)
		}
		if err := pod.Remove(ctx); err != nil {
			t.Fatal(err)
		}
	})

	// container_lifecycle_test.go: "shouldn't restart init containers upon regular container
	// restart".
	t.Run("RegularRestarts", func(t *testing.T) {
		pod, err := h.rt.Start(ctx, podlife.PodSpec{
			Name: "e2e-init-regular-restarts", TerminationGracePeriod: ptr(3 * time.Second),
			InitContainers: []podlife.ContainerSpec{initC("init1", "/bin/true"), initC("init2", "/bin/true")},
			Containers:     []podlife.ContainerSpec{{Name: "run1", Image: testImage, Command: shCmd("sleep 0.2; exit 1")}},
		})
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		st, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool { return s.ContainerStatuses[0].RestartCount >= 3 })
		if err != nil {
			t.Fatalf("run1 not restarted 3 times: %v", err)
		}
		for _, c := range st.InitContainerStatuses {
			if n := len(events(pod, c.Name, reasons.Started)); c.RestartCount != 0 || n != 1 {
				t.Errorf("init %s: restartCount %d, started %d times: want once", c.Name, c.RestartCount, n)
			}
		}
		if err := pod.Remove(ctx); err != nil {
			t.Fatal(err)
		}
	})

	// Upstream: "should not start app containers and fail the pod if init containers fail on a
	// RestartNever pod".
	t.Run("FailNever", func(t *testing.T) {
		pod, err := h.rt.Start(ctx, podlife.PodSpec{
			Name: "e2e-init-fail-never", RestartPolicy: podlife.RestartNever,
			InitContainers: []podlife.ContainerSpec{initC("init1", "/bin/true"), initC("init2", "/bin/false")},
			Containers:     []podlife.ContainerSpec{initC("run1", "/bin/true")},
		})
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		st, err := pod.Wait(ctx)
		if err != nil || st.Phase != podlife.PhaseFailed {
			t.Fatalf("phase %s (%v), want Failed", st.Phase, err)
		}
		if tt := st.InitContainerStatuses[1].State.Terminated; tt == nil || tt.ExitCode == 0 {
			t.Errorf("init2 %+v, want terminated with a failure", st.InitContainerStatuses[1].State)
		}
		c := st.Condition(conditions.PodInitialized)
		if c.Status != "False" || c.Reason != "ContainersNotInitialized" || c.Message != "containers with incomplete status: [init2]" {
			t.Errorf("Initialized %+v, want False ContainersNotInitialized \"containers with incomplete status: [init2]\"", c)
		}
		if st.ContainerStatuses[0].State.Waiting == nil {
			t.Errorf("run1 %+v, want waiting (never started)", st.ContainerStatuses[0].State)
		}
	})
}

// container_probe.go, the probes that must restart their container: exec timeouts, a failing
// startup probe, liveness after startup, a redirect to the same host, a probe's own
// terminationGracePeriodSeconds. One pod; every container restarts at least once.
func TestE2EProbesRestart(t *testing.T) {
	h := newHarness(t, fastBackoff)
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	srv := redirectServer(t)
	// Probes that kill begin after delay: a shell that is PID 1 ignores SIGTERM until its trap
	// is set, so a kill in its first milliseconds would wait for the whole grace period.
	const period, delay = 400 * time.Millisecond, 500 * time.Millisecond
	exec := func(cmd string, timeout time.Duration) *probe.Spec {
		return &probe.Spec{Prober: probe.Exec("/bin/sh", "-c", cmd), InitialDelay: delay, Period: period, Timeout: timeout, FailureThreshold: 1}
	}
	c := func(name, cmd string) podlife.ContainerSpec {
		return podlife.ContainerSpec{Name: name, Image: testImage, Command: shCmd(cmd), VolumeMounts: sharedMount}
	}
	// "should be restarted with an exec liveness probe with timeout".
	liveTimeout := c("live-timeout", loopForever)
	liveTimeout.LivenessProbe = exec("sleep 10", 300*time.Millisecond)
	// "should be restarted with a failing exec liveness probe that took longer than the timeout".
	liveBg := c("live-bg", loopForever)
	liveBg.LivenessProbe = exec("sleep 10 & exit 1", time.Second)
	// "should be restarted startup probe fails": liveness would pass.
	startupFails := c("startup-fails", loopForever)
	startupFails.StartupProbe = &probe.Spec{Prober: probe.Exec("/bin/false"), InitialDelay: delay, Period: period, FailureThreshold: 3}
	startupFails.LivenessProbe = exec("true", time.Second)
	// "should be restarted by liveness probe after startup probe enables it".
	afterStartup := c("after-startup", "(sleep 1; touch /tmp/startup) & "+loopForever)
	afterStartup.StartupProbe = &probe.Spec{Prober: probe.Exec("cat", "/tmp/startup"), Period: period, Timeout: budget(time.Second), FailureThreshold: 60}
	afterStartup.LivenessProbe = exec("false", time.Second)
	// "should be restarted with a local redirect http liveness probe": the redirect goes to a
	// failing /healthz on the same host, which is followed.
	redirect := c("local-redirect", loopForever)
	redirect.LivenessProbe = &probe.Spec{Prober: probe.HTTPGet(srv.port, "/redirect?loc="+url.QueryEscape("/healthz"), probe.WithHost("127.0.0.1")),
		InitialDelay: delay, Period: period, Timeout: budget(5 * time.Second), FailureThreshold: 1}
	// "should be restarted with a /healthz http liveness probe" and "should have monotonically
	// increasing restart count" (3 restarts here, 5 upstream).
	healthz := c("healthz", loopForever)
	healthz.LivenessProbe = &probe.Spec{Prober: probe.HTTPGet(srv.port, "/healthz", probe.WithHost("127.0.0.1")),
		InitialDelay: delay, Period: period, Timeout: budget(5 * time.Second), FailureThreshold: 1}
	// "should override timeoutGracePeriodSeconds when LivenessProbe/StartupProbe field is set":
	// the first run ignores SIGTERM, the pod's grace period is 60 s (30 s upstream: more room
	// for a slow host's bound below), the probes' is 1 s.
	ignoreOnce := func(name string) string {
		return "if [ ! -e /shared/" + name + " ]; then touch /shared/" + name + "; trap '' TERM; else trap 'exit 0' TERM; fi; while :; do sleep 0.1; done"
	}
	probeGrace := ptr(time.Second)
	liveGrace := c("live-grace", ignoreOnce("live-grace"))
	liveGrace.LivenessProbe = &probe.Spec{Prober: probe.Exec("/bin/sh", "-c", "test -e /tmp/restarted || { touch /tmp/restarted; false; }"),
		InitialDelay: delay, Period: period, Timeout: budget(time.Second), FailureThreshold: 1, TerminationGracePeriod: probeGrace}
	startupGrace := c("startup-grace", ignoreOnce("startup-grace"))
	startupGrace.StartupProbe = &probe.Spec{Prober: probe.Exec("cat", "/tmp/startup"),
		InitialDelay: delay, Period: period, Timeout: budget(time.Second), FailureThreshold: 1, TerminationGracePeriod: probeGrace}

	pod, err := h.rt.Start(ctx, podlife.PodSpec{
		Name: "e2e-probes-restart", TerminationGracePeriod: ptr(60 * time.Second), Volumes: sharedVolume(),
		Containers: []podlife.ContainerSpec{liveTimeout, liveBg, startupFails, afterStartup, redirect, healthz, liveGrace, startupGrace},
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	recorded := recordEvents(ctx, pod)
	counts := map[string]int{}
	st, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool {
		all := true
		for _, c := range s.ContainerStatuses {
			if c.RestartCount < counts[c.Name] {
				t.Errorf("%s: restartCount went down from %d to %d", c.Name, counts[c.Name], c.RestartCount)
			}
			counts[c.Name] = c.RestartCount
			all = all && c.RestartCount >= 1
		}
		all = all && statusOf(t, s, "healthz").RestartCount >= 3
		return all
	})
	if err != nil {
		t.Fatalf("not every container restarted: %v; restart counts %v", err, counts)
	}
	for _, c := range st.ContainerStatuses {
		if c.LastState.Terminated == nil {
			t.Errorf("%s: lastState %+v, want the killed run", c.Name, c.LastState)
		}
	}
	killing := map[string]string{}
	for _, e := range recorded("", reasons.Killing) {
		if _, seen := killing[e.Container]; !seen {
			killing[e.Container] = e.Message
		}
	}
	for name, kind := range map[string]string{"live-timeout": "liveness", "live-bg": "liveness", "startup-fails": "startup",
		"after-startup": "liveness", "local-redirect": "liveness", "healthz": "liveness", "live-grace": "liveness", "startup-grace": "startup"} {
		if want := "Container " + name + " failed " + kind + " probe, will be restarted"; killing[name] != want {
			t.Errorf("%s: first Killing %q, want %q", name, killing[name], want)
		}
	}
	// after-startup: its liveness probe failed only once the startup probe had passed.
	for _, e := range recorded("after-startup", reasons.Unhealthy) {
		if strings.HasPrefix(e.Message, "Liveness") {
			break
		}
		if !strings.HasPrefix(e.Message, "Startup") {
			t.Errorf("after-startup: %q before any liveness failure", e.Message)
		}
	}
	if srv.hits("/healthz") == 0 {
		t.Errorf("the same-host redirect was not followed to /healthz")
	}
	// The probe's grace period (1 s), not the pod's (60 s), bounded the kill of the runs that
	// ignore SIGTERM: generous upper bound (20 s, scaled on a slow host), below 60 s.
	for _, name := range []string{"live-grace", "startup-grace"} {
		k, x := recorded(name, reasons.Killing), recorded(name, reasons.Exited)
		if len(k) == 0 || len(x) == 0 {
			t.Errorf("%s: Killing %v, Exited %v", name, k, x)
			continue
		}
		if d := x[0].Time.Sub(k[0].Time); d < time.Second || d > min(budget(20*time.Second), 50*time.Second) {
			t.Errorf("%s: exited %v after Killing, want the probe's 1 s grace period (+ the 2 s minimum), not the pod's 60 s", name, d)
		}
		if !strings.HasSuffix(x[0].Message, "exited with code 137") {
			t.Errorf("%s: first exit %q, want SIGKILLed (137): its first run ignores SIGTERM", name, x[0].Message)
		}
	}
}

// container_probe.go, the probes that must not restart (or not make ready) their container, and
// the readiness/liveness behaviour while the pod terminates. One pod.
func TestE2EProbesSteady(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	srv := redirectServer(t)
	const f = "/shared/message"
	const period = 400 * time.Millisecond
	c := func(name, cmd string) podlife.ContainerSpec {
		return podlife.ContainerSpec{Name: name, Image: testImage, Command: shCmd(cmd), VolumeMounts: sharedMount}
	}
	exec := func(cmd string, timeout time.Duration, failures int) *probe.Spec {
		return &probe.Spec{Prober: probe.Exec("/bin/sh", "-c", cmd), Period: period, Timeout: timeout, FailureThreshold: failures}
	}
	// "with readiness probe should not be ready before initial delay and never restart": the
	// probe stamps each run, so its first run is seen from inside.
	readyDelay := c("ready-delay", stampCmd(f, "ready-delay", "main")+"; "+loopForever)
	readyDelay.ReadinessProbe = exec(stampCmd(f, "ready-delay", "probe"), budget(5*time.Second), 1)
	readyDelay.ReadinessProbe.InitialDelay = 1500 * time.Millisecond
	// "with readiness probe that fails should never be ready and never restart".
	readyFails := c("ready-fails", loopForever)
	readyFails.ReadinessProbe = exec("false", budget(5*time.Second), 1)
	// "should not be ready with an exec readiness probe timeout".
	readyTimeout := c("ready-timeout", loopForever)
	readyTimeout.ReadinessProbe = exec("sleep 10", 300*time.Millisecond, 1)
	// "should *not* be restarted with a exec "cat /tmp/health" liveness probe".
	liveOK := c("live-ok", "echo ok > /tmp/health; "+loopForever)
	liveOK.LivenessProbe = exec("cat /tmp/health", budget(5*time.Second), 3)
	liveOK.LivenessProbe.InitialDelay = time.Second // as upstream's 15 s: the file is written first
	// "should *not* be restarted with a /healthz http liveness probe" (httpGet "/" on a server
	// in the container).
	web := c("http-ok", "mkdir -p /www && echo ok > /www/index.html && trap 'exit 0' TERM; httpd -f -p 8080 -h /www & wait")
	web.LivenessProbe = &probe.Spec{Prober: probe.HTTPGet(8080, "/"), Period: period, Timeout: budget(5 * time.Second), FailureThreshold: 5}
	// "should *not* be restarted with a non-local redirect http liveness probe": a ProbeWarning.
	remote := c("remote-redirect", loopForever)
	remote.LivenessProbe = &probe.Spec{Prober: probe.HTTPGet(srv.port, "/redirect?loc="+url.QueryEscape("http://0.0.0.0/"), probe.WithHost("127.0.0.1")),
		Period: period, Timeout: budget(5 * time.Second), FailureThreshold: 1}
	// "should be ready immediately after startupProbe succeeds": readiness would pass from the
	// start but its period is 30 s; it must run as soon as the startup probe passed.
	afterStartup := c("ready-after-startup", "(sleep 1; touch /tmp/startup) & "+loopForever)
	// Its timeout is generous: what the test tells apart is a readiness probe run at once from
	// one run 30 s later, and an exec of true that outlives 1 s on a loaded machine (it did, with
	// eight containers starting beside it) would push it to the next period.
	afterStartup.ReadinessProbe = &probe.Spec{Prober: probe.Exec("true"), Period: 30 * time.Second, Timeout: budget(10 * time.Second), FailureThreshold: 1}
	afterStartup.StartupProbe = &probe.Spec{Prober: probe.Exec("cat", "/tmp/startup"), Period: period, Timeout: budget(time.Second), FailureThreshold: 100}
	// "should mark readiness on pods to false [and disable liveness probes] while pod is in
	// progress of terminating" and container_lifecycle_test.go's "should execute readiness probe
	// while in preStop, but not liveness": the preStop removes the files both probes read and
	// makes both probes fail and takes 3 s; on SIGTERM the container stays 1 s more.
	terminating := c("terminating", "trap 'sleep 1; exit 0' TERM; while :; do sleep 0.1; done")
	terminating.PreStop = hook.Exec("/bin/sh", "-c", "touch /tmp/terminating; "+stampCmd(f, "terminating", "prestop")+"; sleep 3")
	terminating.ReadinessProbe = exec("test ! -e /tmp/terminating", budget(5*time.Second), 1)
	terminating.LivenessProbe = exec("test ! -e /tmp/terminating", budget(5*time.Second), 2)

	pod, err := h.rt.Start(ctx, podlife.PodSpec{
		Name: "e2e-probes-steady", TerminationGracePeriod: ptr(10 * time.Second), Volumes: sharedVolume(),
		Containers: []podlife.ContainerSpec{readyDelay, readyFails, readyTimeout, liveOK, web, remote, afterStartup, terminating},
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	recorded := recordEvents(ctx, pod)
	var mu sync.Mutex
	everReady := map[string]bool{}
	var startedAt, readyAt time.Time
	watch := func(s podlife.PodStatus) {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range s.ContainerStatuses {
			everReady[c.Name] = everReady[c.Name] || c.Ready
			if c.Name == "ready-after-startup" && c.Started && startedAt.IsZero() {
				startedAt = time.Now()
			}
			if c.Name == "ready-after-startup" && c.Ready && readyAt.IsZero() {
				readyAt = time.Now()
			}
		}
	}
	st, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool {
		watch(s)
		if s.Reason == "StartError" {
			return true // the pod is stopped: nothing more will become ready
		}
		ready := func(name string) bool { return statusOf(t, s, name).Ready }
		return ready("ready-delay") && ready("ready-after-startup") && ready("terminating") && ready("http-ok") && ready("live-ok")
	})
	if err == nil && st.Reason == "StartError" {
		t.Fatalf("the pod's start failed: %s", st.Message)
	}
	if err != nil {
		t.Fatalf("not ready: %v; status %+v", err, st)
	}
	mu.Lock()
	// Its own readiness, seen from its start: the other containers may take longer on a slow
	// host. The bound stays below the 30 s readiness period it tells apart.
	if startedAt.IsZero() || readyAt.Sub(startedAt) > min(budget(15*time.Second), 25*time.Second) {
		t.Errorf("ready-after-startup ready %v after it started, want at once (not after the 30 s readiness period)", readyAt.Sub(startedAt))
	}
	mu.Unlock()
	// A window for the failing probes, measured in their own failures.
	for _, name := range []string{"ready-fails", "ready-timeout"} {
		n := 0
		waitEventMatch(t, ctx, pod, name+" 3 Unhealthy events", func(e podlife.Event) bool {
			if e.Container == name && e.Reason == reasons.Unhealthy {
				n++
			}
			return n >= 3
		})
	}
	waitEvent(t, ctx, pod, "remote-redirect", reasons.ProbeWarning)
	st = pod.Status()
	watch(st)
	lines := readStamped(t, filepath.Join(pod.Sandbox().Dir(), "volumes", "shared", "message"))
	main, ok1 := first(lines, "ready-delay", "main")
	firstProbe, ok2 := first(lines, "ready-delay", "probe")
	if !ok1 || !ok2 || firstProbe.at-main.at < 1.3 {
		t.Errorf("ready-delay: first readiness probe %.2fs after the container's first line, want >= the 1.5 s initial delay", firstProbe.at-main.at)
	}
	mu.Lock()
	for _, name := range []string{"ready-fails", "ready-timeout"} {
		if everReady[name] {
			t.Errorf("%s was ready", name)
		}
	}
	mu.Unlock()
	for _, c := range st.ContainerStatuses {
		if c.RestartCount != 0 {
			t.Errorf("%s restarted %d times, want never", c.Name, c.RestartCount)
		}
	}
	if w := recorded("remote-redirect", reasons.ProbeWarning); len(w) == 0 || !strings.Contains(w[0].Message, "Probe terminated redirects") {
		t.Errorf("ProbeWarning %q, want the kubelet's \"Probe terminated redirects\"", w[0].Message)
	}
	if srv.hits("/") > 0 {
		t.Errorf("the redirect to another host was followed")
	}

	// Terminating: the container goes unready while it still runs, and no liveness failure
	// kills it although its liveness file is gone.
	stopped := make(chan error, 1)
	go func() { stopped <- pod.Stop(ctx) }()
	st, err = pod.WaitFor(ctx, func(s podlife.PodStatus) bool {
		c := statusOf(t, s, "terminating")
		return !c.Ready || c.State.Running == nil
	})
	if c := statusOf(t, st, "terminating"); err != nil || c.Ready || c.State.Running == nil {
		t.Errorf("terminating: ready %v state %+v (%v), want unready while still running", c.Ready, c.State, err)
	}
	if err := <-stopped; err != nil {
		t.Fatalf("Stop: %v", err)
	}
	for _, e := range recorded("terminating", reasons.Killing) {
		if strings.Contains(e.Message, "failed liveness probe") {
			t.Errorf("liveness killed the terminating container: %v", e)
		}
	}
	if tt := statusOf(t, pod.Status(), "terminating").State.Terminated; tt == nil || tt.ExitCode != 0 {
		t.Errorf("terminating: %+v, want its TERM handler's exit 0", tt)
	}
}

// redirect is a host-side HTTP server for the probes' redirect tests (the kubelet's e2e runs
// agnhost's /redirect and /healthz in the pod; podlife probes can address any host).
type redirect struct {
	port int
	mu   sync.Mutex
	seen map[string]int
}

func redirectServer(t *testing.T) *redirect {
	r := &redirect{seen: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.seen[req.URL.Path]++
		r.mu.Unlock()
		switch req.URL.Path {
		case "/redirect":
			http.Redirect(w, req, req.URL.Query().Get("loc"), http.StatusFound)
		case "/healthz":
			http.Error(w, "unhealthy", http.StatusInternalServerError)
		default:
			w.WriteHeader(http.StatusOK)
		}
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	r.port, _ = strconv.Atoi(u.Port())
	return r
}

func (r *redirect) hits(path string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[path]
}

// lifecycle_hook.go (exec, http and https postStart/preStop, on a regular container and on a
// restartable init container; the postStart sleep hook) and container_lifecycle_test.go's
// "should run Init container to completion before call to PostStart of regular container".
// The upstream tests send the hooks' requests to a handler pod; here an exec hook stamps the
// shared volume and an httpGet hook calls a server on the host. One pod.
func TestE2EHooks(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	const f = "/shared/message"
	var mu sync.Mutex
	seen := map[string]int{}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path]++
		mu.Unlock()
	})
	plain := httptest.NewServer(handler)
	defer plain.Close()
	tls := httptest.NewTLSServer(handler)
	defer tls.Close()
	portOf := func(s *httptest.Server) int {
		u, _ := url.Parse(s.URL)
		p, _ := strconv.Atoi(u.Port())
		return p
	}
	httpHook := func(path string, https bool) hook.Handler {
		if https {
			return hook.HTTPGet(portOf(tls), path, hook.WithHost("127.0.0.1"), hook.WithScheme("HTTPS"))
		}
		return hook.HTTPGet(portOf(plain), path, hook.WithHost("127.0.0.1"))
	}
	execHook := func(who, what string) hook.Handler { return hook.Exec("/bin/sh", "-c", stampCmd(f, who, what)) }
	c := func(name string) podlife.ContainerSpec {
		return podlife.ContainerSpec{Name: name, Image: testImage, VolumeMounts: sharedMount,
			Command: shCmd(stampCmd(f, name, "main") + "; " + loopForever)}
	}
	sidecar := func(name string) podlife.ContainerSpec {
		s := c(name)
		s.RestartPolicy = podlife.RestartAlways
		return s
	}
	init := podlife.ContainerSpec{Name: "init", Image: testImage, VolumeMounts: sharedMount,
		Command: shCmd("sleep 0.3; " + stampCmd(f, "init", "end"))}
	sideExec, sideHTTP, sideHTTPS := sidecar("side-exec"), sidecar("side-http"), sidecar("side-https")
	sideExec.PostStart, sideExec.PreStop = execHook("side-exec", "poststart"), execHook("side-exec", "prestop")
	sideHTTP.PostStart, sideHTTP.PreStop = httpHook("/side-http/poststart", false), httpHook("/side-http/prestop", false)
	sideHTTPS.PostStart, sideHTTPS.PreStop = httpHook("/side-https/poststart", true), httpHook("/side-https/prestop", true)
	appExec, appHTTP, appHTTPS, appSleep := c("app-exec"), c("app-http"), c("app-https"), c("app-sleep")
	appExec.PostStart, appExec.PreStop = execHook("app-exec", "poststart"), execHook("app-exec", "prestop")
	appHTTP.PostStart, appHTTP.PreStop = httpHook("/app-http/poststart", false), httpHook("/app-http/prestop", false)
	appHTTPS.PostStart, appHTTPS.PreStop = httpHook("/app-https/poststart", true), httpHook("/app-https/prestop", true)
	appSleep.PostStart = hook.Sleep(time.Second)
	after := c("after-sleep")

	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "e2e-hooks", TerminationGracePeriod: ptr(10 * time.Second), Volumes: sharedVolume(),
		InitContainers: []podlife.ContainerSpec{init, sideExec, sideHTTP, sideHTTPS},
		Containers:     []podlife.ContainerSpec{appExec, appHTTP, appHTTPS, appSleep, after},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	file := filepath.Join(pod.Sandbox().Dir(), "volumes", "shared", "message")
	lines := waitStamped(t, file, "init", "side-exec", "app-exec", "app-sleep", "after-sleep")
	initEnd, _ := first(lines, "init", "end")
	for _, who := range []string{"side-exec", "app-exec"} {
		l, ok := first(lines, who, "poststart")
		if !ok {
			t.Errorf("%s: no postStart line: %+v", who, lines)
		} else if l.at < initEnd.at {
			t.Errorf("%s postStart at %.2f, before the init container completed at %.2f", who, l.at, initEnd.at)
		}
	}
	s1, _ := first(lines, "app-sleep", "main")
	s2, _ := first(lines, "after-sleep", "main")
	if s2.at-s1.at < 0.9 {
		t.Errorf("after-sleep started %.2fs after app-sleep, want >= its 1 s postStart sleep", s2.at-s1.at)
	}
	mu.Lock()
	for _, p := range []string{"/side-http/poststart", "/side-https/poststart", "/app-http/poststart", "/app-https/poststart"} {
		if seen[p] != 1 {
			t.Errorf("%s: %d requests, want 1", p, seen[p])
		}
	}
	mu.Unlock()
	if e := events(pod, "", reasons.LifecycleFallback); len(e) > 0 {
		t.Errorf("an HTTPS hook fell back to HTTP: %v", e)
	}
	if err := pod.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	lines = readStamped(t, file)
	for _, who := range []string{"side-exec", "app-exec"} {
		if _, ok := first(lines, who, "prestop"); !ok {
			t.Errorf("%s: no preStop line: %+v", who, lines)
		}
	}
	mu.Lock()
	for _, p := range []string{"/side-http/prestop", "/side-https/prestop", "/app-http/prestop", "/app-https/prestop"} {
		if seen[p] != 1 {
			t.Errorf("%s: %d requests, want 1", p, seen[p])
		}
	}
	mu.Unlock()
}

// container_lifecycle_test.go's termination tests and lifecycle_hook.go's "ignore terminated
// container" for the preStop sleep.
func TestE2ETermination(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	const f = "/shared/message"

	// "should respect termination grace period seconds with long-running preStop hook": the
	// preStop never returns; the stop signal comes when the grace period (2 s) is over, SIGKILL
	// 2 s (the kubelet's minimum) after it.
	t.Run("LongPreStop", func(t *testing.T) {
		pod, err := h.rt.Run(ctx, podlife.PodSpec{
			Name: "e2e-long-prestop", TerminationGracePeriod: ptr(2 * time.Second), Volumes: sharedVolume(),
			Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, VolumeMounts: sharedMount,
				Command: shCmd("on_term() { " + stampCmd(f, "app", "term") + "; }; trap on_term TERM; while :; do sleep 0.1; done"),
				PreStop: hook.Exec("/bin/sh", "-c", stampCmd(f, "app", "prestop")+"; sleep 3600")}},
		})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		// The grace period counts from the start of the preStop's exec, which comes after Stop is
		// called and before the hook's first line (an exec takes seconds on a slow host): the
		// lower bound counts from the call, the upper one from the line.
		stopAt := uptime(t)
		if err := pod.Stop(ctx); err != nil {
			t.Fatalf("Stop: %v", err)
		}
		lines := readStamped(t, filepath.Join(pod.Sandbox().Dir(), "volumes", "shared", "message"))
		pre, ok1 := first(lines, "app", "prestop")
		term, ok2 := first(lines, "app", "term")
		if !ok1 || !ok2 {
			t.Fatalf("missing lines: %+v", lines)
		}
		if d, most := term.at-pre.at, 2+budget(15*time.Second).Seconds(); term.at-stopAt < 1.95 || d > most {
			t.Errorf("SIGTERM %.2fs after Stop, %.2fs after the preStop began, want when the 2 s grace period ends (at most %.0f s)", term.at-stopAt, d, most)
		}
		killing, exited := eventTime(t, pod, "app", reasons.Killing), eventTime(t, pod, "app", reasons.Exited)
		if d := exited.Sub(killing); d < 4*time.Second || d > budget(20*time.Second) {
			t.Errorf("exited %v after Killing, want grace 2 s + the 2 s minimum", d)
		}
		if tt := pod.Status().ContainerStatuses[0].State.Terminated; tt == nil || tt.ExitCode != 137 {
			t.Errorf("terminated %+v, want SIGKILLed (137): it ignores SIGTERM", tt)
		}
	})

	// "should call the container's preStop hook and terminate it if its startup probe fails" and
	// "... if its liveness probe fails", under restartPolicy Never.
	t.Run("ProbeFailureRunsPreStop", func(t *testing.T) {
		c := func(name string) podlife.ContainerSpec {
			return podlife.ContainerSpec{Name: name, Image: testImage, VolumeMounts: sharedMount,
				Command: shCmd("on_term() { " + stampCmd(f, name, "term") + "; exit 0; }; trap on_term TERM; while :; do sleep 0.1; done"),
				PreStop: hook.Exec("/bin/sh", "-c", stampCmd(f, name, "prestop"))}
		}
		startup, liveness := c("startup"), c("liveness")
		startup.StartupProbe = execProbe("false", 300*time.Millisecond, 1)
		liveness.LivenessProbe = execProbe("false", 300*time.Millisecond, 1)
		// After the TERM trap is set (a shell that is PID 1 ignores SIGTERM until then).
		startup.StartupProbe.InitialDelay, liveness.LivenessProbe.InitialDelay = 500*time.Millisecond, 500*time.Millisecond
		pod, err := h.rt.Start(ctx, podlife.PodSpec{
			Name: "e2e-probe-prestop", RestartPolicy: podlife.RestartNever, TerminationGracePeriod: ptr(10 * time.Second), Volumes: sharedVolume(),
			Containers: []podlife.ContainerSpec{startup, liveness},
		})
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		st, err := pod.Wait(ctx)
		if err != nil || st.Phase != podlife.PhaseSucceeded {
			t.Fatalf("phase %s (%v), want Succeeded (both exit 0 on SIGTERM)", st.Phase, err)
		}
		lines := readStamped(t, filepath.Join(pod.Sandbox().Dir(), "volumes", "shared", "message"))
		for _, name := range []string{"startup", "liveness"} {
			pre, ok1 := first(lines, name, "prestop")
			term, ok2 := first(lines, name, "term")
			if !ok1 || !ok2 || term.at < pre.at {
				t.Errorf("%s: preStop %v at %.2f, SIGTERM %v at %.2f: want the preStop first", name, ok1, pre.at, ok2, term.at)
			}
			c := statusOf(t, st, name)
			if tt := c.State.Terminated; tt == nil || tt.ExitCode != 0 || c.RestartCount != 0 {
				t.Errorf("%s: %+v restarts %d, want terminated 0 and never restarted", name, c.State, c.RestartCount)
			}
		}
	})

	// lifecycle_hook.go "Lifecycle Sleep Hook": "valid prestop hook using sleep action" (the
	// container ends after the sleep, within the grace period), "reduce GracePeriodSeconds during
	// runtime" (a stop with a shorter grace period cuts the sleep) and "prestop hook using sleep
	// action with zero duration". One pod per case, the container exits at once on SIGTERM.
	for _, tc := range []struct {
		name        string
		sleep       time.Duration
		stopGrace   *time.Duration
		least, most time.Duration // Killing to Exited
		below       time.Duration // what most tells apart (the grace period, the cut sleep): a slow host's budget stays under it
	}{
		{"PreStopSleep", 2 * time.Second, nil, 2 * time.Second, 20 * time.Second, 40 * time.Second},
		{"PreStopSleepReducedGrace", 30 * time.Second, ptr(2 * time.Second), 2 * time.Second, 15 * time.Second, 30 * time.Second},
		{"PreStopSleepZero", 0, nil, 0, 15 * time.Second, 40 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod, err := h.rt.Run(ctx, podlife.PodSpec{
				Name: "e2e-" + strings.ToLower(tc.name), TerminationGracePeriod: ptr(40 * time.Second),
				Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, PreStop: hook.Sleep(tc.sleep),
					// Ready once its TERM trap is set (a shell that is PID 1 ignores SIGTERM until then).
					Command:        shCmd("trap 'exit 0' TERM; touch /tmp/up; while :; do sleep 0.1; done"),
					ReadinessProbe: execProbe("test -f /tmp/up", 100*time.Millisecond, 1)}},
			})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if err := pod.WaitReady(ctx); err != nil {
				t.Fatalf("WaitReady: %v", err)
			}
			var opts []podlife.StopOption
			if tc.stopGrace != nil {
				opts = append(opts, podlife.WithGracePeriod(*tc.stopGrace))
			}
			if err := pod.Stop(ctx, opts...); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			killing, exited := eventTime(t, pod, "app", reasons.Killing), eventTime(t, pod, "app", reasons.Exited)
			most := min(budget(tc.most), tc.below-2*time.Second)
			if d := exited.Sub(killing); d < tc.least || d > most {
				t.Errorf("exited %v after Killing, want in [%v, %v]", d, tc.least, most)
			}
			if tt := pod.Status().ContainerStatuses[0].State.Terminated; tt == nil || tt.ExitCode != 0 {
				t.Errorf("terminated %+v, want exit 0 (SIGTERM after the sleep, not SIGKILL)", tt)
			}
		})
	}

	// lifecycle_hook.go "Lifecycle Sleep Hook ... ignore terminated container": a preStop sleep
	// of a container that already exited does not delay the stop.
	t.Run("PreStopSleepOfExited", func(t *testing.T) {
		pod, err := h.rt.Start(ctx, podlife.PodSpec{
			Name: "e2e-sleep-exited", RestartPolicy: podlife.RestartNever, TerminationGracePeriod: ptr(60 * time.Second),
			Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"/bin/true"}, PreStop: hook.Sleep(30 * time.Second)}},
		})
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		if st, err := pod.Wait(ctx); err != nil || st.Phase != podlife.PhaseSucceeded {
			t.Fatalf("phase %s (%v)", st.Phase, err)
		}
		begin := time.Now()
		if err := pod.Stop(ctx); err != nil {
			t.Fatalf("Stop: %v", err)
		}
		if d := time.Since(begin); d > min(budget(15*time.Second), 28*time.Second) {
			t.Errorf("Stop took %v: the 30 s preStop sleep ran for an exited container", d)
		}
	})
}

// container_lifecycle_test.go, restartable init containers (sidecars).
func TestE2ESidecars(t *testing.T) {
	h := newHarness(t, fastBackoff)
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	const f = "/shared/message"
	sidecar := func(name, cmd string) podlife.ContainerSpec {
		return podlife.ContainerSpec{Name: name, Image: testImage, VolumeMounts: sharedMount, RestartPolicy: podlife.RestartAlways, Command: shCmd(cmd)}
	}
	// A sidecar that runs until SIGTERM; its preStop takes 1 s.
	steady := func(name string) podlife.ContainerSpec {
		s := sidecar(name, stampCmd(f, name, "main")+"; on_term() { "+stampCmd(f, name, "term")+"; sleep 0.3; exit 0; }; trap on_term TERM; while :; do sleep 0.1; done")
		s.PreStop = hook.Exec("/bin/sh", "-c", stampCmd(f, name, "prestop-begin")+"; sleep 1; "+stampCmd(f, name, "prestop-end"))
		return s
	}

	// restartPolicy=Never: "a restartable init container runs continuously", "... starts and
	// exits with exit code 0 continuously", "... exits with exit code 1 continuously", "should
	// run both restartable init containers and third init container together", "should terminate
	// sidecars in reverse order after all main containers have exited", "should call sidecar
	// container PreStop hook simultaneously".
	t.Run("Never", func(t *testing.T) {
		pod, err := h.rt.Start(ctx, podlife.PodSpec{
			Name: "e2e-sidecars-never", RestartPolicy: podlife.RestartNever, TerminationGracePeriod: ptr(10 * time.Second), Volumes: sharedVolume(),
			InitContainers: []podlife.ContainerSpec{
				steady("sc-a"), steady("sc-b"),
				sidecar("sc-exit0", stampCmd(f, "sc-exit0", "run")+"; sleep 0.2; exit 0"),
				sidecar("sc-exit1", stampCmd(f, "sc-exit1", "run")+"; sleep 0.2; exit 1"),
				{Name: "init3", Image: testImage, VolumeMounts: sharedMount,
					Command: shCmd(stampCmd(f, "init3", "begin") + "; sleep 0.5; " + stampCmd(f, "init3", "end"))},
			},
			// The app outlives the exiting sidecars' first runs by construction (it waits for their
			// second), not by a sleep a slow host could outrun.
			Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, VolumeMounts: sharedMount,
				Command: shCmd(stampCmd(f, "app", "begin") + "; until [ $(grep -c 'sc-exit0 run' " + f + ") -ge 2 ] && [ $(grep -c 'sc-exit1 run' " + f + ") -ge 2 ]; do sleep 0.1; done; sleep 1.5; " + stampCmd(f, "app", "end"))}},
		})
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		st, err := pod.Wait(ctx)
		if err != nil || st.Phase != podlife.PhaseSucceeded {
			t.Fatalf("phase %s (%v), want Succeeded; status %+v", st.Phase, err, st)
		}
		for _, name := range []string{"sc-exit0", "sc-exit1"} {
			if c := statusOf(t, st, name); c.RestartCount < 1 {
				t.Errorf("%s: restartCount %d, want restarted whatever the pod's policy", name, c.RestartCount)
			}
		}
		if c := statusOf(t, st, "sc-a"); c.RestartCount != 0 || c.State.Terminated == nil {
			t.Errorf("sc-a: %+v restarts %d, want terminated once, never restarted", c.State, c.RestartCount)
		}
		if err := pod.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		lines := readStamped(t, filepath.Join(pod.Sandbox().Dir(), "volumes", "shared", "message"))
		get := func(who, what string) float64 {
			l, ok := first(lines, who, what)
			if !ok {
				t.Fatalf("no %s %s line: %+v", who, what, lines)
			}
			return l.at
		}
		// init3 ran while both sidecars ran.
		if b := get("init3", "begin"); b < get("sc-a", "main") || b < get("sc-b", "main") || get("sc-a", "term") < get("init3", "end") {
			t.Errorf("init3 did not run alongside the sidecars: %+v", lines)
		}
		// Sidecars stop after the app, in reverse order.
		appEnd := get("app", "end")
		if ta, tb := get("sc-a", "term"), get("sc-b", "term"); ta < appEnd || tb < appEnd || ta < tb {
			t.Errorf("sidecars' SIGTERM: sc-a %.2f, sc-b %.2f, app end %.2f: want after the app, sc-b first", ta, tb, appEnd)
		}
		// The sidecars' preStop hooks run at the same time (the kubelet runs every preStop
		// before waiting for its container's turn to be stopped).
		if ab, bb, ae, be := get("sc-a", "prestop-begin"), get("sc-b", "prestop-begin"), get("sc-a", "prestop-end"), get("sc-b", "prestop-end"); ab > be || bb > ae {
			t.Errorf("sidecar preStops ran one after the other: sc-a %.2f-%.2f, sc-b %.2f-%.2f", ab, ae, bb, be)
		}
	})

	// "should terminate sidecars simultaneously if prestop doesn't exit": the preStop hooks loop
	// until the grace period (2 s) is over; the sidecars ignore SIGTERM, so they are killed
	// together 2 s (the minimum) later, not one after the other. Upstream also expects each
	// preStop's process to run until its container is killed (grace + 2 s): podlife ends it when
	// the grace period is over (a known difference, skipped at the end).
	t.Run("PreStopNeverExits", func(t *testing.T) {
		looping := func(name string) podlife.ContainerSpec {
			s := sidecar(name, "trap '' TERM; while :; do sleep 0.1; done")
			s.PreStop = hook.Exec("/bin/sh", "-c", "while :; do "+stampCmd(f, name, "prestop")+"; sleep 0.2; done")
			return s
		}
		pod, err := h.rt.Start(ctx, podlife.PodSpec{
			Name: "e2e-sidecars-prestop-loops", RestartPolicy: podlife.RestartNever, TerminationGracePeriod: ptr(2 * time.Second), Volumes: sharedVolume(),
			InitContainers: []podlife.ContainerSpec{looping("sc-1"), looping("sc-2"), looping("sc-3")},
			Containers:     []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: shCmd("sleep 0.5")}},
		})
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		st, err := pod.Wait(ctx)
		if err != nil || st.Phase != podlife.PhaseSucceeded {
			t.Fatalf("phase %s (%v), want Succeeded", st.Phase, err)
		}
		lines := readStamped(t, filepath.Join(pod.Sandbox().Dir(), "volumes", "shared", "message"))
		var firsts, lasts, lifetimes []float64
		for _, name := range []string{"sc-1", "sc-2", "sc-3"} {
			var runs []float64
			for _, l := range lines {
				if l.who == name {
					runs = append(runs, l.at)
				}
			}
			if len(runs) == 0 {
				t.Fatalf("%s: its preStop never ran: %+v", name, lines)
			}
			firsts, lasts = append(firsts, runs[0]), append(lasts, runs[len(runs)-1])
			lifetimes = append(lifetimes, runs[len(runs)-1]-runs[0])
			if tt := statusOf(t, st, name).State.Terminated; tt == nil || tt.ExitCode != 137 {
				t.Errorf("%s: %+v, want SIGKILLed", name, tt)
			}
		}
		// One after the other, they would be at least 2 s apart each (the kill's minimum): the
		// bound grows on a slow host (three execs at once) and stays below 4 s.
		together := min(budget(1500*time.Millisecond), 3500*time.Millisecond).Seconds()
		if spread := slices.Max(lasts) - slices.Min(lasts); spread > together {
			t.Errorf("the sidecars were killed %.2fs apart (preStops last ran at %v): want together", spread, lasts)
		}
		if spread := slices.Max(firsts) - slices.Min(firsts); spread > together {
			t.Errorf("the sidecars' preStops began %.2fs apart (%v): want together", spread, firsts)
		}
		if slices.Min(lifetimes) < 3.5 {
			t.Skipf("difference: the preStops ran %v s: podlife ends an exec preStop's process when the grace period (2 s) is over, "+
				"the kubelet leaves it running until its container is killed 2 s later (docs/kubelet-comparison.md)", lifetimes)
		}
	})

	// restartPolicy=Always: "should call the container's preStop hook and not launch next
	// container if the restartable init container's startup probe fails" and "... and start the
	// next container if the restartable init container's liveness probe fails".
	for _, kind := range []string{"startup", "liveness"} {
		t.Run("ProbeFails-"+kind, func(t *testing.T) {
			sc := sidecar("sidecar", "trap '"+`echo "$(cut -d" " -f1 /proc/uptime) sidecar term" >> `+f+"; exit 0' TERM; while :; do sleep 0.1; done")
			sc.PreStop = hook.Exec("/bin/sh", "-c", stampCmd(f, "sidecar", "prestop"))
			failing := execProbe("false", 300*time.Millisecond, 1)
			failing.InitialDelay = 500 * time.Millisecond // after the TERM trap is set
			if kind == "startup" {
				sc.StartupProbe = failing
			} else {
				sc.LivenessProbe = failing
			}
			pod, err := h.rt.Start(ctx, podlife.PodSpec{
				Name: "e2e-sidecar-" + kind + "-fails", TerminationGracePeriod: ptr(20 * time.Second), Volumes: sharedVolume(),
				InitContainers: []podlife.ContainerSpec{sc},
				Containers:     []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: shCmd(loopForever)}},
			})
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			st, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool { return s.InitContainerStatuses[0].RestartCount >= 2 })
			if err != nil {
				t.Fatalf("sidecar not restarted twice: %v", err)
			}
			lines := readStamped(t, filepath.Join(pod.Sandbox().Dir(), "volumes", "shared", "message"))
			pre, ok1 := first(lines, "sidecar", "prestop")
			term, ok2 := first(lines, "sidecar", "term")
			if !ok1 || !ok2 {
				t.Fatalf("the sidecar's preStop (%v) or SIGTERM (%v) missing when its %s probe failed: %+v", ok1, ok2, kind, lines)
			}
			// Killed alone, the sidecar gets SIGTERM right after its preStop, not once the app
			// has exited or the 20 s grace period is over (generous bound).
			if d := term.at - pre.at; d < 0 || d > min(budget(10*time.Second), 18*time.Second).Seconds() {
				t.Errorf("SIGTERM %.2fs after the preStop, want right after it", d)
			}
			started := len(events(pod, "app", reasons.Started)) > 0
			if kind == "startup" && (started || st.Phase != podlife.PhasePending) {
				t.Errorf("app started %v, phase %s: want never started, Pending", started, st.Phase)
			}
			if kind == "liveness" {
				if _, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool { return s.ContainerStatuses[0].State.Running != nil }); err != nil {
					t.Errorf("app never started: %v", err)
				}
			}
			if err := pod.Remove(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}

	// "should not hang in termination if terminated during initialization": stopped while the
	// first (regular) init container runs, before any sidecar started, the pod stops within its
	// grace period without waiting on the sidecars.
	t.Run("StopDuringInit", func(t *testing.T) {
		pod, err := h.rt.Start(ctx, podlife.PodSpec{
			Name: "e2e-sidecars-stop-in-init", RestartPolicy: podlife.RestartNever, TerminationGracePeriod: ptr(3 * time.Second), Volumes: sharedVolume(),
			InitContainers: []podlife.ContainerSpec{
				{Name: "start-init", Image: testImage, Command: shCmd(loopForever)},
				steady("sc-1"), steady("sc-2"),
			},
			Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: shCmd("sleep 5")}},
		})
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		if _, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool { return s.InitContainerStatuses[0].State.Running != nil }); err != nil {
			t.Fatal(err)
		}
		begin := time.Now()
		if err := pod.Stop(ctx); err != nil {
			t.Fatalf("Stop: %v", err)
		}
		if d := time.Since(begin); d > 3*time.Second+budget(10*time.Second) {
			t.Errorf("Stop took %v, want within the 3 s grace period", d)
		}
		for _, name := range []string{"sc-1", "sc-2", "app"} {
			if n := len(events(pod, name, reasons.Started)); n != 0 {
				t.Errorf("%s started during the stop", name)
			}
		}
	})

	// restartPolicy=Never: "an Init container before restartable init container fails".
	t.Run("InitBeforeSidecarFails", func(t *testing.T) {
		pod, err := h.rt.Start(ctx, podlife.PodSpec{
			Name: "e2e-init-before-sidecar", RestartPolicy: podlife.RestartNever, TerminationGracePeriod: ptr(3 * time.Second), Volumes: sharedVolume(),
			InitContainers: []podlife.ContainerSpec{
				{Name: "init1", Image: testImage, Command: []string{"/bin/false"}},
				sidecar("sidecar", loopForever),
			},
			Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"/bin/true"}}},
		})
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		st, err := pod.Wait(ctx)
		if err != nil || st.Phase != podlife.PhaseFailed {
			t.Fatalf("phase %s (%v), want Failed", st.Phase, err)
		}
		if c := statusOf(t, st, "sidecar"); c.State.Waiting == nil || len(events(pod, "sidecar", reasons.Started)) != 0 {
			t.Errorf("sidecar %+v: want never started", c.State)
		}
		if c := statusOf(t, st, "app"); c.State.Waiting == nil {
			t.Errorf("app %+v: want never started", c.State)
		}
	})

	// restartPolicy=Never: "an Init container after restartable init container fails": the pod
	// fails and the sidecar is stopped.
	t.Run("InitAfterSidecarFails", func(t *testing.T) {
		pod, err := h.rt.Start(ctx, podlife.PodSpec{
			Name: "e2e-init-after-sidecar", RestartPolicy: podlife.RestartNever, TerminationGracePeriod: ptr(3 * time.Second), Volumes: sharedVolume(),
			InitContainers: []podlife.ContainerSpec{
				sidecar("sidecar", loopForever),
				{Name: "init2", Image: testImage, Command: []string{"/bin/false"}},
			},
			Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"/bin/true"}}},
		})
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		st, err := pod.Wait(ctx)
		if err != nil || st.Phase != podlife.PhaseFailed {
			t.Fatalf("phase %s (%v), want Failed", st.Phase, err)
		}
		st, err = pod.WaitFor(ctx, func(s podlife.PodStatus) bool { return statusOf(t, s, "sidecar").State.Terminated != nil })
		if err != nil {
			t.Errorf("sidecar %+v (%v): want stopped once the pod failed", statusOf(t, st, "sidecar").State, err)
		}
		if c := statusOf(t, st, "app"); c.State.Waiting == nil {
			t.Errorf("app %+v: want never started", c.State)
		}
	})
}
