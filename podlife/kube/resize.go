package kube

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/podlife"
)

// resizePolicy converts a container's resizePolicy (validated with the rest of the
// container, see apicheck.Dropped): NotRequired is podlife's zero value.
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

// ContainerResources converts a container's resources as Convert does (CPU in millicores, the
// CPU request defaulting to the limit, memory and ephemeral storage in bytes): the resources a
// resize of the running container asks for (Pod.Resize), from the pod's spec as resized. p is
// the container's path for the errors ("spec.containers[0]"); an unsupported resource is an
// error naming it.
func ContainerResources(r corev1.ResourceRequirements, p *field.Path) (podlife.Resources, error) {
	c := &converter{is: newIssues(Document{})}
	out := c.resources(&r, p.Child("resources"), false)
	var msgs []string
	for _, is := range c.is.all() {
		if is.Severity == Error {
			msgs = append(msgs, is.Path+": "+is.Message)
		}
	}
	if len(msgs) > 0 {
		return out, fmt.Errorf("%s: %w", strings.Join(msgs, "; "), podlife.ErrInvalidSpec)
	}
	return out, nil
}
