package kube

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/podlife/podlife/podlife"
)

// resizePolicy converts a container's resizePolicy (validated with the rest of the
// container, see validateDroppedContainer): NotRequired is podlife's zero value.
func resizePolicy(in []corev1.ContainerResizePolicy) podlife.ResizePolicy {
	var out podlife.ResizePolicy
	for _, rp := range in {
		if rp.RestartPolicy != corev1.RestartContainer {
			continue
		}
		switch rp.ResourceName {
		case corev1.ResourceCPU:
			out.CPU = podlife.ResizeRestartContainer
		case corev1.ResourceMemory:
			out.Memory = podlife.ResizeRestartContainer
		}
	}
	return out
}
