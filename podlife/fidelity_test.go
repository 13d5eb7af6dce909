package podlife_test

import (
	"context"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/conditions"
	"github.com/podlife/podlife/podlife/reasons"
)

// Differences from the kubelet found by a black-box comparison (issue "Kubernetes fidelity"),
// each checked the way the kubelet's e2e tests check it.

// A completed init container is ready (prober_manager's UpdatePodStatus; e2e init_container.go),
// and once the pod has completed, Initialized's reason is PodCompleted.
func TestCompletedInitContainerIsReady(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(time.Minute))
	defer cancel()
	pod, err := h.rt.Start(ctx, podlife.PodSpec{
		Name: "init-ready", RestartPolicy: podlife.RestartNever,
		InitContainers: []podlife.ContainerSpec{{Name: "init", Image: testImage, Command: []string{"/bin/sh", "-c", "sleep 0.5"}}},
		Containers:     []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"/bin/true"}}},
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	st, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool { return s.InitContainerStatuses[0].State.Running != nil })
	if err != nil {
		t.Fatal(err)
	}
	if c := st.InitContainerStatuses[0]; c.Ready {
		t.Errorf("regular init container ready while it runs: %+v", c)
	}
	st, err = pod.Wait(ctx)
	if err != nil || st.Phase != podlife.PhaseSucceeded {
		t.Fatalf("phase %s (%v), want Succeeded", st.Phase, err)
	}
	if c := st.InitContainerStatuses[0]; !c.Ready || c.State.Terminated == nil || c.State.Terminated.ExitCode != 0 {
		t.Errorf("init container %+v: want terminated 0 and ready", c)
	}
	if c := st.ContainerStatuses[0]; c.Ready {
		t.Errorf("app container ready after it exited: %+v", c)
	}
	if c := st.Condition(conditions.PodInitialized); c.Status != "True" || c.Reason != "PodCompleted" {
		t.Errorf("Initialized %+v, want True with reason PodCompleted", c)
	}
}

// A sidecar's exit never decides the phase: under restartPolicy Never it is restarted (with
// back-off), the next init container and the app still run, and the pod succeeds.
func TestSidecarExitUnderNever(t *testing.T) {
	h := newHarness(t, fastBackoff)
	ctx, cancel := context.WithTimeout(context.Background(), budget(time.Minute))
	defer cancel()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "sidecar-exits", RestartPolicy: podlife.RestartNever, Volumes: sharedVolume(),
		TerminationGracePeriod: ptr(5 * time.Second),
		InitContainers: []podlife.ContainerSpec{
			// Exits 1 on its first run, then says it runs again and stays up.
			{Name: "sidecar", Image: testImage, RestartPolicy: podlife.RestartAlways, VolumeMounts: sharedMount,
				Command: []string{"/bin/sh", "-c", "if [ ! -e /shared/ran ]; then touch /shared/ran; exit 1; fi; touch /shared/again; " + loopForever}},
			{Name: "init", Image: testImage, Command: []string{"/bin/true"}},
		},
		// The app outlives the sidecar's first run by construction: it ends once the sidecar's
		// second run has begun (a sleep would race with the sidecar's exit on a slow host).
		Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, VolumeMounts: sharedMount,
			Command: []string{"/bin/sh", "-c", "until [ -e /shared/again ]; do sleep 0.1; done"}}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	st, err := pod.Wait(ctx)
	if err != nil || st.Phase != podlife.PhaseSucceeded {
		t.Fatalf("phase %s (%v), want Succeeded; status %+v", st.Phase, err, st)
	}
	side := st.InitContainerStatuses[0]
	if side.RestartCount < 1 || side.LastState.Terminated == nil || side.LastState.Terminated.ExitCode != 1 {
		t.Errorf("sidecar %+v: want restarted after its exit 1", side)
	}
	if tt := st.InitContainerStatuses[1].State.Terminated; tt == nil || tt.ExitCode != 0 {
		t.Errorf("init container %+v, want completed", st.InitContainerStatuses[1].State)
	}
	if tt := st.ContainerStatuses[0].State.Terminated; tt == nil || tt.ExitCode != 0 {
		t.Errorf("app %+v, want completed", st.ContainerStatuses[0].State)
	}
}

// A failed postStart under restartPolicy Never: the container is killed (stop signal) and, as it
// will not restart, ends terminated with its process's own exit code, not waiting in
// PostStartHookError.
func TestPostStartFailureUnderNever(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(time.Minute))
	defer cancel()
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "poststart-never", RestartPolicy: podlife.RestartNever, TerminationGracePeriod: ptr(10 * time.Second),
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage,
			Command:   []string{"/bin/sh", "-c", "trap 'exit 3' TERM; while :; do sleep 0.1; done"},
			PostStart: hook.Exec("/bin/sh", "-c", "exit 1"),
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v (a postStart failure is not a Run error)", err)
	}
	st, err := pod.Wait(ctx)
	if err != nil || st.Phase != podlife.PhaseFailed {
		t.Fatalf("phase %s (%v), want Failed", st.Phase, err)
	}
	c := st.ContainerStatuses[0]
	if c.State.Terminated == nil || c.State.Terminated.ExitCode != 3 {
		t.Errorf("container %+v, want terminated with the TERM trap's exit code 3", c.State)
	}
	if len(events(pod, "app", reasons.FailedPostStartHook)) == 0 {
		t.Errorf("no FailedPostStartHook event")
	}
}
