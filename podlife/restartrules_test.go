package podlife_test

import (
	"context"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/restartrule"
)

// Container restart rules on containerd (Kubernetes' ContainerRestartRules, as the kubelet):
// a container's own restartPolicy Never in a pod Always is not restarted while its neighbour
// is; a rule restarting exit code 42 in a pod Never restarts the container once, and the pod,
// never Failed on the way, then Succeeds.
func TestRestartRules(t *testing.T) {
	h := newHarness(t, func(c *podlife.Config) {
		c.Backoff = podlife.Backoff{Initial: 50 * time.Millisecond, Max: 100 * time.Millisecond}
	})
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	byName := func(s podlife.PodStatus, name string) podlife.ContainerStatus {
		for _, c := range s.ContainerStatuses {
			if c.Name == name {
				return c
			}
		}
		t.Fatalf("no status of %s in %+v", name, s)
		return podlife.ContainerStatus{}
	}

	t.Run("Never in a pod Always", func(t *testing.T) {
		pod, err := h.rt.Run(ctx, podlife.PodSpec{Name: "rules-never", RestartPolicy: podlife.RestartAlways,
			TerminationGracePeriod: ptr(time.Duration(0)),
			Containers: []podlife.ContainerSpec{
				{Name: "once", Image: testImage, Command: []string{"/bin/sh", "-c", "exit 3"}, RestartPolicy: podlife.RestartNever},
				{Name: "loop", Image: testImage, Command: []string{"/bin/sh", "-c", "exit 0"}},
			}})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		defer func() { _ = pod.Remove(context.WithoutCancel(ctx)) }()
		st, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool { return byName(s, "once").State.Terminated != nil })
		if err != nil {
			t.Fatalf("once never exited: %+v (%v)", st, err)
		}
		// The neighbour restarts twice more meanwhile: once had every chance to restart.
		n := byName(st, "loop").RestartCount
		st, err = pod.WaitFor(ctx, func(s podlife.PodStatus) bool { return byName(s, "loop").RestartCount >= n+2 })
		if err != nil {
			t.Fatalf("loop not restarted (pod Always): %+v (%v)", byName(st, "loop"), err)
		}
		once := byName(st, "once")
		if once.RestartCount != 0 || once.State.Terminated == nil || once.State.Terminated.ExitCode != 3 {
			t.Errorf("once (restartPolicy Never) = %+v, want terminated with 3 and never restarted", once)
		}
		if st.Phase != podlife.PhaseRunning {
			t.Errorf("phase %s, want Running (loop restarts)", st.Phase)
		}
	})

	t.Run("rule in a pod Never", func(t *testing.T) {
		rule42 := []restartrule.Rule{{Action: restartrule.ActionRestart,
			ExitCodes: &restartrule.OnExitCodes{Operator: restartrule.OpIn, Values: []int32{42}}}}
		pod, err := h.rt.Run(ctx, podlife.PodSpec{Name: "rules-42", RestartPolicy: podlife.RestartNever,
			Volumes: []podlife.Volume{{Name: "d", EmptyDir: &podlife.EmptyDirVolume{}}},
			Containers: []podlife.ContainerSpec{{
				Name: "rule", Image: testImage, RestartPolicy: podlife.RestartNever, RestartPolicyRules: rule42,
				// 42 the first time, 0 the next.
				Command:      []string{"/bin/sh", "-c", "[ -e /d/ran ] && exit 0; touch /d/ran; exit 42"},
				VolumeMounts: []podlife.VolumeMount{{Name: "d", MountPath: "/d"}},
			}}})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		defer func() { _ = pod.Remove(context.WithoutCancel(ctx)) }()
		failed := false
		st, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool {
			failed = failed || s.Phase == podlife.PhaseFailed
			return s.Phase == podlife.PhaseSucceeded || s.Phase == podlife.PhaseFailed
		})
		if err != nil || st.Phase != podlife.PhaseSucceeded || failed {
			t.Fatalf("phase %s (Failed seen: %v, %v), want Succeeded: %+v", st.Phase, failed, err, st.ContainerStatuses)
		}
		c := byName(st, "rule")
		if c.RestartCount != 1 || c.LastState.Terminated == nil || c.LastState.Terminated.ExitCode != 42 ||
			c.State.Terminated == nil || c.State.Terminated.ExitCode != 0 {
			t.Errorf("rule = %+v, want restarted once after 42, then terminated with 0", c)
		}
	})
}
