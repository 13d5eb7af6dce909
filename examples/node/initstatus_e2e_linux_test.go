package main

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// TestNodeInitContainerRestartStatus: an init container that keeps failing on a RestartAlways
// pod is restarted under back-off, and while it is, the API's pod status shows it as the
// kubelet's does (upstream e2e "should not start app containers if init containers fail on a
// RestartAlways pod"): both init container statuses, the first with a restart count and its
// last termination, the second and the app container Waiting PodInitializing, the pod Pending
// with Initialized False. The node used to publish no container status until the start
// returned, which it never does here.
func TestNodeInitContainerRestartStatus(t *testing.T) {
	tn := startNode(t)
	ns := "e2e-init-" + env.runID
	newNamespace(t, ns)
	manifest := fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: init-fails}
spec:
%s  terminationGracePeriodSeconds: 1
  initContainers:
  - {name: init1, image: %[2]s, command: [/bin/false]}
  - {name: init2, image: %[2]s, command: [/bin/true]}
  containers:
  - {name: run1, image: %[2]s, command: [sleep, "3600"]}
`, scheduling(tn.name), testImage)
	mustKubectl(t, manifest, "-n", ns, "apply", "-f", "-")
	var pod corev1.Pod
	// The kubelet's back-off: the first restart at once, then after 10 s and 20 s (upstream waits for 3).
	waitFor(t, "init1 restarted three times, in the API's status", 2*time.Minute, func() (bool, error) {
		out, err := kubectl(t, "", "-n", ns, "get", "pod", "init-fails", "-o", "json")
		if err != nil {
			return false, err
		}
		if err := json.Unmarshal([]byte(out), &pod); err != nil {
			return false, err
		}
		st := pod.Status
		if len(st.InitContainerStatuses) != 2 {
			return false, fmt.Errorf("%d init container statuses, want 2: %+v", len(st.InitContainerStatuses), st)
		}
		if s := st.InitContainerStatuses[0]; s.RestartCount < 3 || s.LastTerminationState.Terminated == nil {
			return false, fmt.Errorf("init1: restarts %d, last state %+v", s.RestartCount, s.LastTerminationState)
		}
		return true, nil
	})
	st := pod.Status
	i1, i2 := st.InitContainerStatuses[0], st.InitContainerStatuses[1]
	if i1.Name != "init1" || i1.LastTerminationState.Terminated.ExitCode != 1 {
		t.Errorf("init1: %+v, want its last termination exit code 1", i1)
	}
	if t1 := i1.State.Terminated; t1 != nil && t1.ExitCode == 0 {
		t.Errorf("init1 succeeded: %+v", i1.State)
	}
	if i2.Name != "init2" || i2.State.Waiting == nil || i2.State.Waiting.Reason != "PodInitializing" {
		t.Errorf("init2: %+v, want Waiting PodInitializing", i2)
	}
	if len(st.ContainerStatuses) != 1 || st.ContainerStatuses[0].State.Waiting == nil || st.ContainerStatuses[0].State.Waiting.Reason != "PodInitializing" {
		t.Errorf("app statuses %+v, want run1 Waiting PodInitializing", st.ContainerStatuses)
	}
	if st.Phase != corev1.PodPending {
		t.Errorf("phase %s, want Pending", st.Phase)
	}
	initialized := false
	for _, c := range st.Conditions {
		if c.Type == corev1.PodInitialized {
			initialized = true
			if c.Status != corev1.ConditionFalse || c.Reason != "ContainersNotInitialized" || c.Message != "containers with incomplete status: [init1 init2]" {
				t.Errorf("Initialized condition %+v, want False ContainersNotInitialized with the kubelet's message", c)
			}
		}
	}
	if !initialized {
		t.Errorf("no Initialized condition: %+v", st.Conditions)
	}
}
