package main

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podlife/podlife/podlife"
)

// podStatus converts a podlife pod's status to the Kubernetes PodStatus the API server keeps,
// with the kubelet's phases, reasons and condition types (podlife reports them in the
// kubelet's shape already). prev is the status the API server has: its PodScheduled condition
// and QoS class, which the control plane sets, are kept.
func podStatus(st podlife.PodStatus, prev corev1.PodStatus, hostIP string) corev1.PodStatus {
	out := corev1.PodStatus{
		Phase:    corev1.PodPhase(st.Phase),
		Reason:   string(st.Reason),
		Message:  st.Message,
		QOSClass: prev.QOSClass,
	}
	if hostIP != "" {
		out.HostIP = hostIP
		out.HostIPs = []corev1.HostIP{{IP: hostIP}}
	}
	if st.PodIP.IsValid() {
		out.PodIP = st.PodIP.String()
		out.PodIPs = []corev1.PodIP{{IP: out.PodIP}}
	}
	if !st.StartTime.IsZero() {
		t := metav1.NewTime(st.StartTime)
		out.StartTime = &t
	}
	for _, c := range prev.Conditions {
		if c.Type == corev1.PodScheduled {
			out.Conditions = append(out.Conditions, c)
		}
	}
	for _, c := range st.Conditions {
		if corev1.PodConditionType(c.Type) == corev1.PodScheduled {
			continue
		}
		out.Conditions = append(out.Conditions, corev1.PodCondition{
			Type:               corev1.PodConditionType(c.Type),
			Status:             corev1.ConditionStatus(c.Status),
			Reason:             c.Reason,
			Message:            c.Message,
			LastTransitionTime: metav1.NewTime(c.LastTransitionTime),
		})
	}
	out.InitContainerStatuses = containerStatuses(st.InitContainerStatuses)
	out.ContainerStatuses = containerStatuses(st.ContainerStatuses)
	out.EphemeralContainerStatuses = containerStatuses(st.EphemeralContainerStatuses)
	return out
}

func containerStatuses(in []podlife.ContainerStatus) []corev1.ContainerStatus {
	if len(in) == 0 {
		return nil
	}
	out := make([]corev1.ContainerStatus, 0, len(in))
	for _, c := range in {
		started := c.Started
		alloc, res := containerResources(c) // resize.go
		out = append(out, corev1.ContainerStatus{
			Name:                 c.Name,
			Image:                c.Image,
			ImageID:              c.ImageID,
			ContainerID:          c.ContainerID,
			State:                containerState(c.State),
			LastTerminationState: containerState(c.LastState),
			Ready:                c.Ready,
			Started:              &started,
			RestartCount:         int32(c.RestartCount),
			AllocatedResources:   alloc,
			Resources:            res,
		})
	}
	return out
}

func containerState(s podlife.ContainerState) corev1.ContainerState {
	var out corev1.ContainerState
	switch {
	case s.Waiting != nil:
		out.Waiting = &corev1.ContainerStateWaiting{Reason: string(s.Waiting.Reason), Message: s.Waiting.Message}
	case s.Running != nil:
		out.Running = &corev1.ContainerStateRunning{StartedAt: metaTime(s.Running.StartedAt)}
	case s.Terminated != nil:
		t := s.Terminated
		out.Terminated = &corev1.ContainerStateTerminated{
			ExitCode:   int32(t.ExitCode),
			Signal:     int32(t.Signal),
			Reason:     string(t.Reason),
			Message:    t.Message,
			StartedAt:  metaTime(t.StartedAt),
			FinishedAt: metaTime(t.FinishedAt),
		}
	}
	return out
}

func metaTime(t time.Time) metav1.Time {
	if t.IsZero() {
		return metav1.Time{}
	}
	return metav1.NewTime(t)
}

// terminatedStatus is the final status of a pod removed from the node (DeletePod): every
// container terminated, as virtual-kubelet expects before it deletes the pod from the API
// server. Containers still shown running in last are marked terminated now.
func terminatedStatus(last corev1.PodStatus) corev1.PodStatus {
	out := *last.DeepCopy()
	now := metav1.Now()
	end := func(list []corev1.ContainerStatus) {
		for i := range list {
			c := &list[i]
			if c.State.Terminated != nil {
				continue
			}
			var started metav1.Time
			if c.State.Running != nil {
				started = c.State.Running.StartedAt
			}
			c.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: 137, Reason: "ContainerStatusUnknown", Message: "The container was removed with its pod",
				StartedAt: started, FinishedAt: now,
			}}
			c.Ready = false
		}
	}
	end(out.InitContainerStatuses)
	end(out.ContainerStatuses)
	for i := range out.Conditions {
		switch out.Conditions[i].Type {
		case corev1.PodReady, corev1.ContainersReady:
			if out.Conditions[i].Status == corev1.ConditionTrue {
				out.Conditions[i].Status = corev1.ConditionFalse
				out.Conditions[i].LastTransitionTime = now
			}
		}
	}
	if out.Phase != corev1.PodSucceeded {
		out.Phase = corev1.PodFailed
	}
	return out
}

// observed sets the generation of the spec the node acts on in pod's status, as the kubelet
// does since 1.34: status.observedGeneration and that of the conditions the node sets (not the
// scheduler's PodScheduled, nor those other clients set: withAPIConditions adds them after).
func observed(pod *corev1.Pod) {
	pod.Status.ObservedGeneration = pod.Generation
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type != corev1.PodScheduled {
			pod.Status.Conditions[i].ObservedGeneration = pod.Generation
		}
	}
}
