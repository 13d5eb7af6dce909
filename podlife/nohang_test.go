package podlife_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/core/content"
	"github.com/containerd/containerd/v2/core/images"
	"github.com/containerd/containerd/v2/core/leases"
	"github.com/containerd/containerd/v2/pkg/namespaces"
	"github.com/containerd/platforms"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
	"github.com/podlife/podlife/podlife/reasons"
	"github.com/podlife/podlife/podlife/startpolicy"
)

// badStopSignalImage makes, in the harness's namespace, a copy of the test image whose config
// has a STOPSIGNAL no one can parse, and returns its name. The harness deletes it at cleanup.
func badStopSignalImage(t *testing.T, h *harness) string {
	t.Helper()
	const name = "podlife.test/bad-stopsignal:1"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ctx = namespaces.WithNamespace(ctx, h.ns)
	// A lease keeps the new blobs from the garbage collector until the image refers to them.
	ctx, done, err := env.client.WithLease(ctx, leases.WithExpiration(time.Hour))
	if err != nil {
		t.Fatalf("lease: %v", err)
	}
	defer func() { _ = done(context.WithoutCancel(ctx)) }()
	cs := env.client.ContentStore()
	img, err := env.client.ImageService().Get(ctx, testImage)
	if err != nil {
		t.Fatalf("get %s: %v", testImage, err)
	}
	mf, err := images.Manifest(ctx, cs, img.Target, platforms.Default())
	if err != nil {
		t.Fatalf("manifest: %v", err)
	}
	raw, err := content.ReadBlob(ctx, cs, mf.Config)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	var cfg ocispec.Image
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatalf("config: %v", err)
	}
	cfg.Config.StopSignal = "SIGNOTASIGNAL"
	write := func(mediaType string, v any, labels map[string]string) ocispec.Descriptor {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		desc := ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(b), Size: int64(len(b))}
		if err := content.WriteBlob(ctx, cs, desc.Digest.String(), bytes.NewReader(b), desc, content.WithLabels(labels)); err != nil {
			t.Fatalf("write %s: %v", mediaType, err)
		}
		return desc
	}
	mf.Config = write(mf.Config.MediaType, cfg, nil)
	refs := map[string]string{"containerd.io/gc.ref.content.config": mf.Config.Digest.String()}
	for i, l := range mf.Layers {
		refs[fmt.Sprintf("containerd.io/gc.ref.content.l.%d", i)] = l.Digest.String()
	}
	mdesc := write(ocispec.MediaTypeImageManifest, mf, refs)
	if mf.MediaType != "" {
		mdesc.MediaType = mf.MediaType
	}
	if _, err := env.client.ImageService().Create(ctx, images.Image{Name: name, Target: mdesc}); err != nil {
		t.Fatalf("create image %s: %v", name, err)
	}
	h.keepImages = append(h.keepImages, name)
	return name
}

// Run returns a *StartError naming the container and the step whenever a container fails
// before its task exists, in any position (the first container, which starts the pod's shim,
// included), under every start policy; nothing is left behind (the harness's leak check).
func TestEarlyFailureNeverHangs(t *testing.T) {
	type kind struct {
		name string
		step podlife.Step
		set  func(c *podlife.ContainerSpec, badImage string)
	}
	kinds := []kind{
		{"never", podlife.StepPull, func(c *podlife.ContainerSpec, _ string) {
			c.Image, c.ImagePullPolicy = "podlife.test/missing:1", podlife.PullNever
		}},
		{"config", podlife.StepCreate, func(c *podlife.ContainerSpec, bad string) { c.Image = bad }},
		{"create", podlife.StepCreate, func(c *podlife.ContainerSpec, _ string) {
			c.Command = []string{"/does/not/exist"}
		}},
	}
	// Where the failing container is: an app container among three, or the init container
	// (which then starts the pod's shim) of a pod with two app containers.
	positions := []struct {
		name  string
		init  bool
		index int
	}{{"first", false, 0}, {"middle", false, 1}, {"last", false, 2}, {"init", true, 0}}
	policies := []struct {
		name   string
		policy startpolicy.Policy
	}{{"sequential", startpolicy.Sequential()}, {"parallel", startpolicy.Parallel(0)}, {"dependency", startpolicy.DependencyOrder()}}
	for _, pol := range policies {
		t.Run(pol.name, func(t *testing.T) {
			h := newHarness(t)
			bad := badStopSignalImage(t, h)
			begin := time.Now()
			for _, k := range kinds {
				for _, pos := range positions {
					t.Run(k.name+"-"+pos.name, func(t *testing.T) {
						spec := podlife.PodSpec{Name: fmt.Sprintf("early-%s-%s", k.name, pos.name), StartPolicy: pol.policy,
							TerminationGracePeriod: ptr(time.Duration(0))}
						for i := range 3 {
							c := podlife.ContainerSpec{Name: fmt.Sprintf("c%d", i), Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}}
							if i > 0 && pol.name == "dependency" {
								c.DependsOn = []startpolicy.Dependency{{Container: fmt.Sprintf("c%d", i-1)}}
							}
							spec.Containers = append(spec.Containers, c)
						}
						failing := &spec.Containers[pos.index]
						if pos.init {
							spec.Containers = spec.Containers[:2]
							spec.InitContainers = []podlife.ContainerSpec{{Name: "init", Image: testImage, Command: []string{"/bin/sh", "-c", "true"}}}
							failing = &spec.InitContainers[0]
						}
						k.set(failing, bad)
						ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
						defer cancel()
						t0 := time.Now()
						pod, err := h.rt.Run(ctx, spec)
						took := time.Since(t0)
						var se *podlife.StartError
						if !errors.As(err, &se) || se.Container != failing.Name || se.Step != k.step {
							t.Fatalf("Run after %v: %v, want a %s StartError for container %s", took, err, k.step, failing.Name)
						}
						if pod != nil {
							t.Errorf("Run returned a pod with its error")
						}
						if _, err := h.rt.Pod(spec.Name); !errors.Is(err, podlife.ErrNotFound) {
							t.Errorf("pod after a failed Run: %v, want it removed", err)
						}
						t.Logf("Run failed in %v: %v", took.Round(time.Millisecond), err)
						if left := cgroupsLeft(h.ns); len(left) > 0 {
							t.Errorf("leak: cgroups left after the failed Run: %v", left)
						}
					})
				}
			}
			t.Logf("%d early failures under %s in %v", len(kinds)*len(positions), pol.name, time.Since(begin).Round(time.Millisecond))
		})
	}
}

// cgroupsLeft lists the container cgroups left in the namespace's cgroup, in any hierarchy
// (cgroup v1 controllers, or v2's unified tree), with the processes still in each.
func cgroupsLeft(ns string) []string {
	roots := []string{"/sys/fs/cgroup"}
	if hs, err := os.ReadDir("/sys/fs/cgroup"); err == nil {
		for _, h := range hs {
			if h.IsDir() {
				roots = append(roots, filepath.Join("/sys/fs/cgroup", h.Name()))
			}
		}
	}
	var out []string
	for _, root := range roots {
		entries, err := os.ReadDir(filepath.Join(root, ns))
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.IsDir() {
				procs, _ := os.ReadFile(filepath.Join(root, ns, e.Name(), "cgroup.procs"))
				out = append(out, fmt.Sprintf("%s (procs %q)", filepath.Join(root, ns, e.Name()), strings.TrimSpace(string(procs))))
			}
		}
	}
	return out
}

// abandonedEvent returns the Warning event saying the pod's kind hook ("PreStop" or
// "PostStart") of container was abandoned.
func abandonedEvent(p *podlife.Pod, container, kind string) (podlife.Event, bool) {
	for _, e := range p.Events() {
		if e.Container == container && e.Type == podlife.EventWarning && string(e.Reason) == "Failed"+kind+"Hook" &&
			strings.Contains(e.Message, kind+"Hook") && strings.Contains(e.Message, "abandoned") {
			return e, true
		}
	}
	return podlife.Event{}, false
}

// stopWithin stops the pod and fails the test unless Stop returned nil within grace + 15 s;
// it returns how long Stop took.
func stopWithin(t *testing.T, p *podlife.Pod, grace time.Duration) time.Duration {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), grace+time.Minute)
	defer cancel()
	t0 := time.Now()
	err := p.Stop(ctx)
	took := time.Since(t0)
	if err != nil {
		t.Fatalf("Stop after %v: %v", took, err)
	}
	if took > grace+15*time.Second {
		t.Errorf("Stop took %v, want at most the grace period %v plus 15 s", took, grace)
	}
	return took
}

// terminatedAll fails the test unless no container of the pod runs and no task is left.
func terminatedAll(t *testing.T, h *harness, p *podlife.Pod) {
	t.Helper()
	ctx := namespaces.WithNamespace(context.Background(), h.ns)
	for _, cs := range p.Status().ContainerStatuses {
		if cs.State.Running != nil {
			t.Errorf("%s after Stop: %+v, want not running", cs.Name, cs.State)
		}
		c, err := p.Container(cs.Name)
		if err != nil || c.ID() == "" {
			continue
		}
		if ctr, err := env.client.LoadContainer(ctx, c.ID()); err == nil {
			if _, err := ctr.Task(ctx, nil); err == nil {
				t.Errorf("%s after Stop: its task still exists", cs.Name)
			}
		}
	}
}

// A Go preStop hook that ignores its context is abandoned when the grace period is over: the
// stop signal goes out then (the container handles SIGTERM and exits 0, no SIGKILL needed), a
// Warning event says so, and Stop returns.
func TestStopAbandonsGoPreStop(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) }) // the abandoned hook's goroutine ends with the test
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const grace = 2 * time.Second
	marks := t.TempDir()
	entered := make(chan struct{}, 1)
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "gostop", TerminationGracePeriod: ptr(grace),
		Volumes: []podlife.Volume{{Name: "marks", HostPath: &podlife.HostPathVolume{Path: marks, Type: podlife.HostPathDirectory}}},
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage, VolumeMounts: []podlife.VolumeMount{{Name: "marks", MountPath: "/marks"}},
			// The container stamps, by the host's uptime clock, when the stop signal reached it.
			Command: []string{"/bin/sh", "-c", "on_term() { " + stampCmd("/marks/log", "app", "TERM") + "; exit 0; }; trap on_term TERM; while :; do sleep 0.1; done"},
			PreStop: hook.HandlerFunc(func(context.Context, hook.Target) error {
				entered <- struct{}{}
				<-release // ignores its context
				return nil
			}),
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	stopAt := uptime(t)
	took := stopWithin(t, pod, grace)
	select {
	case <-entered:
	default:
		t.Fatalf("the preStop hook never ran")
	}
	if took < grace {
		t.Errorf("Stop took %v, less than the grace period %v the preStop hook holds", took, grace)
	}
	// The stop signal went out when the grace period ran out, not 2 s later (when SIGKILL is due):
	// measured from the container's own stamp, not from how long the whole teardown took.
	term, ok := first(readStamped(t, filepath.Join(marks, "log")), "app", "TERM")
	switch {
	case !ok:
		t.Errorf("the container never got the stop signal")
	case term.at < stopAt+grace.Seconds():
		t.Errorf("stop signal %.2f s after the stop, before the grace period %v was over", term.at-stopAt, grace)
	case term.at > stopAt+(grace+minGraceSlack).Seconds():
		t.Errorf("stop signal %.2f s after the stop: late (grace %v; SIGKILL would be due 2 s after it)", term.at-stopAt, grace)
	}
	if tt := pod.Status().ContainerStatuses[0].State.Terminated; tt == nil || tt.ExitCode != 0 {
		t.Errorf("app: %+v, want exit 0 from its SIGTERM trap (the stop signal, not SIGKILL)", pod.Status().ContainerStatuses[0].State)
	}
	if _, ok := abandonedEvent(pod, "app", "PreStop"); !ok {
		t.Errorf("no Warning event saying the preStop hook was abandoned: %v", pod.Events())
	}
	terminatedAll(t, h, pod)
}

// minGraceSlack: the stop signal goes out at the grace period, SIGKILL 2 s later; a stop that
// took longer than grace + this waited for SIGKILL (or worse).
const minGraceSlack = 1800 * time.Millisecond

// A Go postStart hook that ignores its context does not hold a stop: it is abandoned once the
// stop cancels the start, and Stop returns.
func TestStopAbandonsGoPostStart(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const grace = 2 * time.Second
	entered := make(chan struct{})
	pod, err := h.rt.Start(ctx, podlife.PodSpec{
		Name: "gostart", TerminationGracePeriod: ptr(grace),
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever},
			PostStart: hook.HandlerFunc(func(context.Context, hook.Target) error {
				close(entered)
				<-release
				return nil
			}),
		}, {Name: "next", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}}},
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	select {
	case <-entered:
	case <-ctx.Done():
		t.Fatalf("the postStart hook never ran")
	}
	stopWithin(t, pod, grace)
	if err := pod.WaitStarted(ctx); err != nil {
		t.Errorf("WaitStarted after Stop: %v", err)
	}
	if _, ok := abandonedEvent(pod, "app", "PostStart"); !ok {
		t.Errorf("no Warning event saying the postStart hook was abandoned: %v", pod.Events())
	}
	if st := pod.Status().ContainerStatuses[1].State; st.Waiting == nil {
		t.Errorf("next: %+v, want never started", st)
	}
	terminatedAll(t, h, pod)
}

// Exec hooks whose command leaves a background process holding its output (`sleep 1000 &`)
// return once the command exited (the output wait is bounded): Run returns, and so does Stop.
func TestExecHookBackgroundProcess(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const grace = 5 * time.Second
	t0 := time.Now()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "bgexec", TerminationGracePeriod: ptr(grace),
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever},
			PostStart: hook.Exec("/bin/sh", "-c", "sleep 1000 &"),
			PreStop:   hook.Exec("/bin/sh", "-c", "sleep 1000 & echo stopping"),
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if took := time.Since(t0); took > 30*time.Second {
		t.Errorf("Run took %v with a postStart that leaves a background process", took)
	}
	waitEvent(t, ctx, pod, "app", reasons.PostStartCompleted)
	took := stopWithin(t, pod, grace)
	t.Logf("Stop took %v", took)
	terminatedAll(t, h, pod)
	for _, e := range pod.Events() {
		if e.Reason == reasons.FailedPreStopHook || e.Reason == reasons.FailedPostStartHook {
			t.Errorf("hook failed: %v (the commands exit 0)", e)
		}
	}
}

// A hook that stops its own pod does not deadlock: a postStart's Stop joins the stop (the hook
// is abandoned, the stop goes on and the hook's Stop returns when it is done); a preStop's
// Stop, bounded by the hook's context, returns an error when the grace period ends.
func TestHookStopsItsPod(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const grace = 2 * time.Second
	postStop, preStop := make(chan error, 1), make(chan error, 1)
	self := func(t hook.Target) *podlife.Pod {
		p, err := h.rt.Pod(t.Pod)
		if err != nil {
			panic(err)
		}
		return p
	}
	t0 := time.Now()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "selfstop", TerminationGracePeriod: ptr(grace),
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever},
			PostStart: hook.HandlerFunc(func(_ context.Context, t hook.Target) error {
				postStop <- self(t).Stop(context.Background())
				return nil
			}),
			PreStop: hook.HandlerFunc(func(hctx context.Context, t hook.Target) error {
				preStop <- self(t).Stop(hctx)
				return nil
			}),
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if took := time.Since(t0); took > grace+15*time.Second {
		t.Errorf("Run took %v", took)
	}
	select {
	case err := <-postStop:
		if err != nil {
			t.Errorf("the postStart hook's Stop: %v, want nil (it joined the stop)", err)
		}
	case <-time.After(grace + 15*time.Second):
		t.Fatalf("the postStart hook's Stop did not return")
	}
	select {
	case err := <-preStop:
		if err == nil {
			t.Errorf("the preStop hook's Stop returned nil before the stop it is part of ended")
		}
	case <-time.After(grace + 15*time.Second):
		t.Fatalf("the preStop hook's Stop did not return")
	}
	stopWithin(t, pod, grace) // the stop is over: returns at once
	terminatedAll(t, h, pod)
	waitEvent(t, ctx, pod, "", reasons.Stopped)
}

// Close returns promptly and ends every goroutine the Runtime started for a pod with probes, a
// container in crash-loop back-off and an activeDeadline; the pod keeps running, its handle
// then fails with ErrClosed without blocking, and another Runtime stops and removes it.
func TestCloseEndsGoroutines(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const name = "detached"
	t.Cleanup(func() { // if the test stops half-way, before the harness's leak check
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := removePod(ctx, h.rt, name); err != nil && !errors.Is(err, podlife.ErrNotFound) {
			t.Errorf("cleanup: Pod.Remove: %v", err)
		}
	})
	before := podlifetest.Goroutines("podlife/podlife")
	cfg := h.cfg
	cfg.Logger = cfg.Logger.With("runtime", "closed")
	cfg.Backoff = podlife.Backoff{Initial: time.Minute, Max: time.Minute, ResetAfter: time.Hour}
	rt, err := podlife.New(ctx, cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	closed := false
	defer func() {
		if !closed {
			_ = rt.Close()
		}
	}()
	pod, err := rt.Run(ctx, podlife.PodSpec{
		Name: name, TerminationGracePeriod: ptr(2 * time.Second), ActiveDeadline: ptr(time.Hour),
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever},
			ReadinessProbe: execProbe("true", 100*time.Millisecond, 1),
			LivenessProbe:  execProbe("true", 100*time.Millisecond, 3),
		}, {
			Name: "crash", Image: testImage, Command: []string{"/bin/sh", "-c", "exit 3"},
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	// The first restart is immediate; the next waits out the (one minute) back-off.
	waitEvent(t, ctx, pod, "crash", reasons.BackOff)
	if _, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool { return s.ContainerStatuses[0].Ready }); err != nil {
		t.Fatalf("app never ready: %v", err)
	}
	app, _ := pod.Container("app")
	appID := app.ID()

	t0 := time.Now()
	if err := rt.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	closed = true
	if took := time.Since(t0); took > 10*time.Second {
		t.Errorf("Close took %v", took)
	}
	deadline := time.Now().Add(15 * time.Second)
	var left []string
	for {
		left = podlifetest.Goroutines("podlife/podlife")
		if len(left) <= len(before) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(left) > len(before) {
		t.Errorf("%d goroutines running podlife code after Close, %d before New:\n\n%s", len(left), len(before), strings.Join(left, "\n\n"))
	}

	// The old handle does not block on the containers its exit watchers gave up on.
	sctx, scancel := context.WithTimeout(ctx, 10*time.Second)
	err = pod.Stop(sctx)
	scancel()
	if !errors.Is(err, podlife.ErrClosed) {
		t.Errorf("Stop through the closed Runtime: %v, want ErrClosed", err)
	}

	// The pod is still running, under no manager.
	nctx := namespaces.WithNamespace(ctx, h.ns)
	ctr, err := env.client.LoadContainer(nctx, appID)
	if err != nil {
		t.Fatalf("app's container after Close: %v", err)
	}
	task, err := ctr.Task(nctx, nil)
	if err != nil {
		t.Fatalf("app's task after Close: %v", err)
	}
	if st, err := task.Status(nctx); err != nil || st.Status != "running" {
		t.Errorf("app after Close: %+v, %v, want running", st, err)
	}
	rec, err := h.rt.LookupPod(ctx, name)
	if err != nil || rec.Managed() {
		t.Fatalf("LookupPod after Close: %+v, %v, want the pod, unmanaged", rec, err)
	}
	if err := stopPod(ctx, h.rt, name); err != nil {
		t.Fatalf("Pod.Stop from another Runtime: %v", err)
	}
	if _, err := task.Status(nctx); err == nil {
		if st, _ := task.Status(nctx); st.Status == "running" {
			t.Errorf("app still running after Pod.Stop")
		}
	}
	if err := removePod(ctx, h.rt, name); err != nil {
		t.Fatalf("Pod.Remove from another Runtime: %v", err)
	}
	if _, err := h.rt.LookupPod(ctx, name); !errors.Is(err, podlife.ErrNotFound) {
		t.Errorf("LookupPod after Pod.Remove: %v, want ErrNotFound", err)
	}
}

// A stop at any moment of the start (image checks, creates waiting for the pod's shim, starts,
// postStart hooks) returns within the grace period and the start's wait returns too.
func TestStopDuringStartNeverHangs(t *testing.T) {
	h := newHarness(t)
	const grace = 2 * time.Second
	for i, delay := range []time.Duration{0, 10 * time.Millisecond, 30 * time.Millisecond, 60 * time.Millisecond, 120 * time.Millisecond, 250 * time.Millisecond} {
		t.Run(delay.String(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			spec := podlife.PodSpec{Name: fmt.Sprintf("stopearly-%d", i), TerminationGracePeriod: ptr(grace),
				InitContainers: []podlife.ContainerSpec{{Name: "init", Image: testImage, Command: []string{"/bin/sh", "-c", "true"}}}}
			for j := range 3 {
				spec.Containers = append(spec.Containers, podlife.ContainerSpec{Name: fmt.Sprintf("c%d", j), Image: testImage,
					Command: []string{"/bin/sh", "-c", loopForever}, PostStart: hook.Exec("/bin/sh", "-c", "sleep 0.1")})
			}
			pod, err := h.rt.Start(ctx, spec)
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			time.Sleep(delay)
			stopWithin(t, pod, grace)
			wctx, wcancel := context.WithTimeout(ctx, 15*time.Second)
			defer wcancel()
			if err := pod.WaitStarted(wctx); err != nil && errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("WaitStarted after Stop: %v", err)
			}
			terminatedAll(t, h, pod)
			if err := pod.Remove(ctx); err != nil {
				t.Errorf("Remove: %v", err)
			}
		})
	}
}
