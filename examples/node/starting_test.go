package main

import (
	"errors"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/podlife/podlife/podlife"
)

// TestStartFailedKubeletRetries: a restartPolicy Never pod whose container could not be
// created, or whose image could not be pulled, stays Pending with the container Waiting in
// the kubelet's reason and is tried again (the kubelet retries a container that never ran);
// one whose container ran and failed to start is Failed; other policies always retry.
func TestStartFailedKubeletRetries(t *testing.T) {
	for _, c := range []struct {
		policy corev1.RestartPolicy
		err    error
		retry  bool
		phase  corev1.PodPhase
		reason string // of container app
	}{
		{corev1.RestartPolicyNever, &podlife.StartError{Pod: "p", Container: "app", Step: podlife.StepCreate, Err: errors.New("mount: not a directory")},
			true, corev1.PodPending, "CreateContainerError"},
		{corev1.RestartPolicyNever, &podlife.StartError{Pod: "p", Container: "app", Step: podlife.StepPull, Err: errors.New("not found")},
			true, corev1.PodPending, "ErrImagePull"},
		{corev1.RestartPolicyNever, fmt.Errorf("start: %w", &podlife.StartError{Pod: "p", Step: podlife.StepNetwork, Err: errors.New("cni")}),
			true, corev1.PodPending, "ContainerCreating"},
		{corev1.RestartPolicyNever, &podlife.StartError{Pod: "p", Container: "app", Step: podlife.StepStart, Err: errors.New("exec: no such file")},
			false, corev1.PodFailed, ""},
		{corev1.RestartPolicyAlways, &podlife.StartError{Pod: "p", Container: "app", Step: podlife.StepStart, Err: errors.New("exec: no such file")},
			true, corev1.PodPending, ""},
	} {
		pr, _ := unitProvider(t)
		pod := testPod("ns", "p")
		pod.Spec.RestartPolicy = c.policy
		pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: "other", Image: "busybox:1"})
		e := &entry{pod: pod, name: "ns-p"}
		retry := pr.startFailed(e, c.err)
		st := e.pod.Status
		var reason string
		if len(st.ContainerStatuses) > 0 && st.ContainerStatuses[0].State.Waiting != nil {
			reason = st.ContainerStatuses[0].State.Waiting.Reason
		}
		if retry != c.retry || st.Phase != c.phase || reason != c.reason {
			t.Errorf("%s, %v: retry %v, phase %s, app waiting %q; want %v, %s, %q", c.policy, c.err, retry, st.Phase, reason, c.retry, c.phase, c.reason)
		}
		if c.reason != "" && (len(st.ContainerStatuses) != 2 || st.ContainerStatuses[1].State.Waiting == nil ||
			st.ContainerStatuses[1].State.Waiting.Reason != "ContainerCreating") {
			t.Errorf("%v: the other container: %+v, want Waiting ContainerCreating", c.err, st.ContainerStatuses)
		}
	}
}
