package podlife_test

import (
	"context"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/conditions"
	"github.com/podlife/podlife/podlife/restartrule"
)

// RestartAllContainers on containerd (the kubelet's RestartAllContainersOnContainerExits, as
// upstream's "Pod Extended (RestartAllContainers)" specs check it): an app container's exit
// matching the rule restarts every container once (init containers run again, the sidecar and
// the other app container are stopped and started again), each with its last state, and the pod,
// restartPolicy Never, runs on; an init container's match during the start sequence restarts
// the init containers, and then the app container starts.
func TestRestartAllContainers(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	rule := []restartrule.Rule{{Action: restartrule.ActionRestartAllContainers,
		ExitCodes: &restartrule.OnExitCodes{Operator: restartrule.OpIn, Values: []int32{42}}}}
	work := []podlife.VolumeMount{{Name: "work", MountPath: "/mnt"}}
	sleep := []string{"/bin/sh", "-c", "sleep 10000"}
	all := func(s podlife.PodStatus) []podlife.ContainerStatus {
		return append(append([]podlife.ContainerStatus{}, s.InitContainerStatuses...), s.ContainerStatuses...)
	}
	check := func(t *testing.T, pod *podlife.Pod, running ...string) {
		t.Helper()
		st, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool {
			n := 0
			for _, c := range all(s) {
				if c.RestartCount >= 1 {
					n++
				}
			}
			run := 0
			for _, c := range s.ContainerStatuses {
				if c.State.Running != nil {
					run++
				}
			}
			return n == len(all(s)) && run == len(s.ContainerStatuses) || s.Phase == podlife.PhaseFailed || s.Phase == podlife.PhaseSucceeded
		})
		if err != nil || st.Phase != podlife.PhaseRunning {
			t.Fatalf("not every container restarted and running: %+v (%v)", st, err)
		}
		for _, c := range all(st) {
			if c.RestartCount != 1 || c.LastState.Terminated == nil {
				t.Errorf("%s: restart count %d, last state %+v; want 1 and terminated", c.Name, c.RestartCount, c.LastState)
			}
		}
		if c := st.Condition(conditions.AllContainersRestarting); c.Status != conditions.False {
			t.Errorf("AllContainersRestarting = %+v, want False once restarted", c)
		}
	}

	t.Run("app container", func(t *testing.T) {
		pod, err := h.rt.Run(ctx, podlife.PodSpec{Name: "restartall-app", RestartPolicy: podlife.RestartNever,
			TerminationGracePeriod: ptr(time.Duration(0)),
			Volumes:                []podlife.Volume{{Name: "work", EmptyDir: &podlife.EmptyDirVolume{}}},
			InitContainers: []podlife.ContainerSpec{
				{Name: "init", Image: testImage, Command: []string{"/bin/sh", "-c", "exit 0"}},
				{Name: "sidecar", Image: testImage, Command: sleep, RestartPolicy: podlife.RestartAlways},
			},
			Containers: []podlife.ContainerSpec{
				{Name: "source", Image: testImage, RestartPolicy: podlife.RestartNever, RestartPolicyRules: rule, VolumeMounts: work,
					Command: []string{"/bin/sh", "-c", "if [ -f /mnt/done ]; then sleep 10000; else touch /mnt/done; exit 42; fi"}},
				{Name: "regular", Image: testImage, Command: sleep},
			}})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		defer func() { _ = pod.Remove(context.WithoutCancel(ctx)) }()
		check(t, pod)
	})

	t.Run("init container", func(t *testing.T) {
		pod, err := h.rt.Run(ctx, podlife.PodSpec{Name: "restartall-init", RestartPolicy: podlife.RestartNever,
			TerminationGracePeriod: ptr(time.Duration(0)),
			Volumes:                []podlife.Volume{{Name: "work", EmptyDir: &podlife.EmptyDirVolume{}}},
			InitContainers: []podlife.ContainerSpec{
				{Name: "sidecar", Image: testImage, Command: sleep, RestartPolicy: podlife.RestartAlways},
				{Name: "init", Image: testImage, Command: []string{"/bin/sh", "-c", "exit 0"}},
				{Name: "source", Image: testImage, RestartPolicy: podlife.RestartNever, RestartPolicyRules: rule, VolumeMounts: work,
					Command: []string{"/bin/sh", "-c", "if [ -f /mnt/done ]; then exit 0; else touch /mnt/done; exit 42; fi"}},
			},
			Containers: []podlife.ContainerSpec{{Name: "regular", Image: testImage, Command: sleep}},
		})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		defer func() { _ = pod.Remove(context.WithoutCancel(ctx)) }()
		st, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool {
			return len(s.ContainerStatuses) == 1 && s.ContainerStatuses[0].State.Running != nil || s.Phase == podlife.PhaseFailed
		})
		if err != nil || st.Phase != podlife.PhaseRunning {
			t.Fatalf("regular not running: %+v (%v)", st, err)
		}
		for _, c := range st.InitContainerStatuses {
			if c.RestartCount != 1 || c.LastState.Terminated == nil {
				t.Errorf("%s: restart count %d, last state %+v; want 1 and terminated", c.Name, c.RestartCount, c.LastState)
			}
		}
		if c := st.ContainerStatuses[0]; c.RestartCount != 0 {
			t.Errorf("regular (started after the restart) has restart count %d, want 0", c.RestartCount)
		}
	})
}
