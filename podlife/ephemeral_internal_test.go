package podlife

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/cgroupfs"
	"github.com/podlife/podlife/probe"
)

// An ephemeral container is created and started in the running pod, never restarted (the pod's
// policy is Always), not counted in the phase or readiness, shown in
// EphemeralContainerStatuses; the pod's stop stops it, Remove deletes it.
func TestFakeEphemeralLife(t *testing.T) {
	ctx := testCtx(t)
	r, f, _ := newFakeRuntime(t)
	p, err := r.Run(ctx, PodSpec{Name: "eph", Containers: []ContainerSpec{{Name: "a", Image: fakeImage}, {Name: "b", Image: fakeImage}}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := p.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := p.AddEphemeralContainer(ctx, EphemeralContainerSpec{TargetContainerName: "b",
		ContainerSpec: ContainerSpec{Name: "dbg", Image: fakeImage, Command: []string{"ps"}}})
	if err != nil {
		t.Fatalf("AddEphemeralContainer: %v", err)
	}
	if got, err := p.Container("dbg"); err != nil || got != c {
		t.Errorf("Container(dbg) = %v, %v", got, err)
	}
	f.waitCall(t, "start dbg")
	// The target's PID namespace, pinned and checked against b's cgroup.
	bID := strings.TrimPrefix(p.Status().ContainerStatuses[1].ContainerID, "containerd://")
	if want := "pin pid 4242 of " + cgroupfs.Path(r.cfg.Namespace, bID); !hasCall(f.history(), want) {
		t.Errorf("no %q call; calls: %q", want, f.history())
	}
	if !hasEvent(p.w, "dbg", EventNormal, api.ReasonStarted, "Started container dbg") {
		t.Errorf("no Started event for dbg: %v", p.Events())
	}
	f.exit(t, "dbg", 1)
	st, err := p.WaitFor(ctx, func(s PodStatus) bool {
		return len(s.EphemeralContainerStatuses) == 1 && s.EphemeralContainerStatuses[0].State.Terminated != nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if cs := st.EphemeralContainerStatuses[0]; cs.Name != "dbg" || cs.State.Terminated.ExitCode != 1 || cs.Ready || cs.Started {
		t.Errorf("dbg's status %+v", cs)
	}
	if st.Phase != PhaseRunning || len(st.ContainerStatuses) != 2 {
		t.Errorf("pod %s with %d containers after dbg exited 1, want Running with 2", st.Phase, len(st.ContainerStatuses))
	}
	if r, n := st.ReadyCount(); r != 2 || n != 2 {
		t.Errorf("ready %d/%d", r, n)
	}

	if _, err := p.AddEphemeralContainer(ctx, EphemeralContainerSpec{ContainerSpec: ContainerSpec{Name: "idle", Image: fakeImage}}); err != nil {
		t.Fatalf("AddEphemeralContainer idle: %v", err)
	}
	f.waitCall(t, "start idle")
	if err := p.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	calls := f.history()
	for _, want := range []string{"kill idle TERM", "exited idle 143", "delete-task dbg", "delete-task idle"} {
		if !hasCall(calls, want) {
			t.Errorf("no %q call; calls: %q", want, calls)
		}
	}
	for _, c := range calls {
		if strings.HasPrefix(c, "create dbg#") || strings.HasPrefix(c, "start dbg#") {
			t.Errorf("dbg restarted: %q", calls)
		}
	}
	if _, err := p.AddEphemeralContainer(ctx, EphemeralContainerSpec{ContainerSpec: ContainerSpec{Name: "late", Image: fakeImage}}); !errors.Is(err, ErrPodStopping) {
		t.Errorf("AddEphemeralContainer after the stop: %v, want ErrPodStopping", err)
	}
	if err := p.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	for _, want := range []string{"delete dbg", "delete idle"} {
		if !hasCall(f.history(), want) {
			t.Errorf("no %q call; calls: %q", want, f.history())
		}
	}
}

func hasCall(calls []string, want string) bool { return slices.Contains(calls, want) }

// A stop that begins while an ephemeral container is being created waits for the create, never
// starts its process, and deletes what the create made.
func TestFakeEphemeralStopDuringCreate(t *testing.T) {
	ctx := testCtx(t)
	r, f, _ := newFakeRuntime(t)
	p, err := r.Run(ctx, PodSpec{Name: "ephstop", Containers: []ContainerSpec{{Name: "a", Image: fakeImage}}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	gate := make(chan struct{})
	f.mu.Lock()
	f.taskGate = map[string]chan struct{}{"dbg": gate}
	f.mu.Unlock()
	added := make(chan error, 1)
	go func() {
		_, err := p.AddEphemeralContainer(ctx, EphemeralContainerSpec{ContainerSpec: ContainerSpec{Name: "dbg", Image: fakeImage}})
		added <- err
	}()
	f.waitCall(t, "task dbg")
	stopped := make(chan error, 1)
	go func() { stopped <- p.Stop(ctx) }()
	if _, err := p.WaitFor(ctx, func(s PodStatus) bool { return s.Stopping }); err != nil {
		t.Fatal(err)
	}
	close(gate)
	if err := <-stopped; err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := <-added; !errors.Is(err, ErrPodStopping) {
		t.Errorf("AddEphemeralContainer cut by the stop: %v, want ErrPodStopping", err)
	}
	calls := f.history()
	if hasCall(calls, "start dbg") {
		t.Errorf("dbg started after the stop began: %q", calls)
	}
	if !hasCall(calls, "delete-task dbg") {
		t.Errorf("dbg's task not deleted by the stop: %q", calls)
	}
}

// The API server's rules for ephemeral containers, at spec.ephemeralContainers[i], and the
// Config's gates; a refused spec leaves the pod unchanged.
func TestFakeEphemeralValidation(t *testing.T) {
	ctx := testCtx(t)
	r, f, _ := newFakeRuntime(t)
	p, err := r.Start(ctx, PodSpec{Name: "ephval", Volumes: []Volume{{Name: "v", EmptyDir: &EmptyDirVolume{}}},
		InitContainers: []ContainerSpec{{Name: "init", Image: fakeImage, Command: []string{"true"}}},
		Containers:     []ContainerSpec{{Name: "a", Image: fakeImage}}})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	f.waitCall(t, "start init")
	f.exit(t, "init", 0)
	if err := p.WaitStarted(ctx); err != nil {
		t.Fatalf("WaitStarted: %v", err)
	}
	const path = "spec.ephemeralContainers[0]."
	const forbidden = ": Forbidden: cannot be set for an Ephemeral Container"
	for _, tc := range []struct {
		name string
		spec EphemeralContainerSpec
		want string
	}{
		{"ports", EphemeralContainerSpec{ContainerSpec: ContainerSpec{Ports: []ContainerPort{{ContainerPort: 80}}}}, path + "ports" + forbidden},
		{"postStart", EphemeralContainerSpec{ContainerSpec: ContainerSpec{PostStart: hook.Exec("true")}}, path + "lifecycle" + forbidden},
		{"livenessProbe", EphemeralContainerSpec{ContainerSpec: ContainerSpec{LivenessProbe: &probe.Spec{Prober: probe.TCPSocket(80)}}}, path + "livenessProbe" + forbidden},
		{"readinessProbe", EphemeralContainerSpec{ContainerSpec: ContainerSpec{ReadinessProbe: &probe.Spec{Prober: probe.TCPSocket(80)}}}, path + "readinessProbe" + forbidden},
		{"startupProbe", EphemeralContainerSpec{ContainerSpec: ContainerSpec{StartupProbe: &probe.Spec{Prober: probe.TCPSocket(80)}}}, path + "startupProbe" + forbidden},
		{"resources", EphemeralContainerSpec{ContainerSpec: ContainerSpec{Resources: Resources{MemoryLimit: 1 << 20}}}, path + "resources" + forbidden},
		{"restartPolicy", EphemeralContainerSpec{ContainerSpec: ContainerSpec{RestartPolicy: RestartAlways}}, path + "restartPolicy" + forbidden},
		{"subPath", EphemeralContainerSpec{ContainerSpec: ContainerSpec{VolumeMounts: []VolumeMount{{Name: "v", MountPath: "/v", SubPath: "x"}}}}, path + "volumeMounts[0].subPath" + forbidden},
		{"unknown volume", EphemeralContainerSpec{ContainerSpec: ContainerSpec{VolumeMounts: []VolumeMount{{Name: "w", MountPath: "/w"}}}}, path + `volumeMounts[0].name: Not found: "w"`},
		{"duplicate of an app container", EphemeralContainerSpec{ContainerSpec: ContainerSpec{Name: "a"}}, path + `name: Duplicate value: "a"`},
		{"duplicate of an init container", EphemeralContainerSpec{ContainerSpec: ContainerSpec{Name: "init"}}, path + `name: Duplicate value: "init"`},
		{"target", EphemeralContainerSpec{TargetContainerName: "nope"}, path + `targetContainerName: Not found: "nope"`},
		{"privileged", EphemeralContainerSpec{ContainerSpec: ContainerSpec{SecurityContext: &SecurityContext{Privileged: true}}}, path + "securityContext.privileged: Forbidden: privileged containers are not allowed"},
		{"image", EphemeralContainerSpec{ContainerSpec: ContainerSpec{Image: "-"}}, path + "image: Invalid value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec
			if spec.Name == "" {
				spec.Name = "dbg"
			}
			if spec.Image == "" {
				spec.Image = fakeImage
			}
			_, err := p.AddEphemeralContainer(ctx, spec)
			var ve *ValidationError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want a *ValidationError with %q", err, tc.want)
			}
		})
	}
	if st := p.Status(); len(st.EphemeralContainerStatuses) != 0 {
		t.Errorf("refused specs left %+v", st.EphemeralContainerStatuses)
	}
}

// A target that does not run has no PID namespace to join: the create fails, the container
// waits with CreateContainerError saying so, and nothing was pinned.
func TestFakeEphemeralTargetNotRunning(t *testing.T) {
	ctx := testCtx(t)
	r, f, _ := newFakeRuntime(t)
	p, err := r.Run(ctx, PodSpec{Name: "ephdone", RestartPolicy: RestartOnFailure,
		Containers: []ContainerSpec{{Name: "done", Image: fakeImage}, {Name: "b", Image: fakeImage}}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	f.waitCall(t, "start done")
	f.exit(t, "done", 0)
	if _, err := p.WaitFor(ctx, func(s PodStatus) bool { return containerStatus(s, "done").State.Terminated != nil }); err != nil {
		t.Fatal(err)
	}
	_, err = p.AddEphemeralContainer(ctx, EphemeralContainerSpec{TargetContainerName: "done",
		ContainerSpec: ContainerSpec{Name: "dbg", Image: fakeImage}})
	var se *StartError
	if !errors.As(err, &se) || se.Step != StepCreate || !strings.Contains(err.Error(), `target container "done" is not running`) {
		t.Fatalf("AddEphemeralContainer with a target that exited: %v, want a create error", err)
	}
	cs := p.Status().EphemeralContainerStatuses
	if len(cs) != 1 || cs[0].State.Waiting == nil || cs[0].State.Waiting.Reason != api.ReasonCreateContainerError {
		t.Errorf("dbg's status %+v, want waiting CreateContainerError", cs)
	}
	for _, c := range f.history() {
		if strings.HasPrefix(c, "pin ") || c == "create dbg" {
			t.Errorf("%q with a target that does not run; calls: %q", c, f.history())
		}
	}
}
