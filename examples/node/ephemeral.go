package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/podlife/podlife/podlife"
)

// Ephemeral containers reach a node as the kubelet gets them: a client adds one to a running
// pod through the pods/ephemeralcontainers subresource (`kubectl debug`), and the pod's spec
// changes (UpdatePod). The node converts it as a container of the pod (its env, envFrom and
// volume mounts resolved as the pod's other containers') and starts it with
// Pod.AddEphemeralContainer; its status is the pod's EphemeralContainerStatuses. Like the
// kubelet, the node never restarts nor removes one.

// ephemeralStartTimeout bounds one ephemeral container's start (its image pull included).
const ephemeralStartTimeout = 5 * time.Minute

// startEphemeral starts the ephemeral containers of e's pod that the node has not started
// yet, each in a goroutine of its own. A pod podlife has not admitted yet gets them once it
// is (follow calls it again).
func (pr *provider) startEphemeral(e *entry) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if e.p == nil || e.deleting || len(e.pod.Spec.EphemeralContainers) == 0 {
		return
	}
	if e.ephemeral == nil {
		e.ephemeral = map[string]bool{}
		// Those podlife has already (a pod adopted from an earlier process of the node).
		for _, s := range e.p.Status().EphemeralContainerStatuses {
			e.ephemeral[s.Name] = true
		}
	}
	pod, p := e.pod.DeepCopy(), e.p
	for _, ec := range pod.Spec.EphemeralContainers {
		if e.ephemeral[ec.Name] {
			continue
		}
		e.ephemeral[ec.Name] = true
		pr.starts.Add(1)
		go func() {
			defer pr.starts.Done()
			pr.runEphemeral(e, p, pod, ec)
		}()
	}
}

// runEphemeral converts and starts one ephemeral container of pod. A failure is recorded as
// the kubelet's Failed event on the container.
func (pr *provider) runEphemeral(e *entry, p *podlife.Pod, pod *corev1.Pod, ec corev1.EphemeralContainer) {
	ctx, cancel := context.WithTimeout(pr.life, ephemeralStartTimeout)
	defer cancel()
	spec, err := pr.convertEphemeral(ctx, pod, ec)
	if err == nil {
		_, err = p.AddEphemeralContainer(ctx, spec)
	}
	if err != nil {
		pr.log.Warn("ephemeral container", "podlife", e.name, "container", ec.Name, "err", err)
		ref := &corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: pod.Namespace, Name: pod.Name,
			UID: pod.UID, FieldPath: "spec.ephemeralContainers{" + ec.Name + "}"}
		pr.recorder.Eventf(ref, corev1.EventTypeWarning, "Failed", "Error: %v", err)
	}
	pr.sync(e)
}

// convertEphemeral converts an ephemeral container of pod with podlife/kube, as the only
// container of a copy of the pod (the API server has checked what an ephemeral container may
// not have: ports, probes, lifecycle, resources).
func (pr *provider) convertEphemeral(ctx context.Context, pod *corev1.Pod, ec corev1.EphemeralContainer) (podlife.EphemeralContainerSpec, error) {
	c := corev1.Container(ec.EphemeralContainerCommon)
	c.Stdin, c.StdinOnce, c.TTY = false, false, false // EphemeralContainerSpec's own
	one := pod.DeepCopy()
	one.Spec.InitContainers = nil
	one.Spec.Containers = []corev1.Container{c}
	one.Spec.EphemeralContainers = nil
	spec, _, err := pr.convertWith(ctx, pr.objects, one, false)
	if err != nil {
		return podlife.EphemeralContainerSpec{}, fmt.Errorf("ephemeral container %s: %w", ec.Name, err)
	}
	i := slices.IndexFunc(spec.Containers, func(cs podlife.ContainerSpec) bool { return cs.Name == ec.Name })
	if i < 0 {
		return podlife.EphemeralContainerSpec{}, fmt.Errorf("ephemeral container %s: not converted", ec.Name)
	}
	return podlife.EphemeralContainerSpec{
		ContainerSpec:       spec.Containers[i],
		TargetContainerName: ec.TargetContainerName,
		Stdin:               ec.Stdin,
		TTY:                 ec.TTY,
	}, nil
}

// withoutEphemeral returns pod without its ephemeral containers, for kube.Convert (which
// refuses them: the API server never creates a pod with one). The node starts them itself.
func withoutEphemeral(pod *corev1.Pod) *corev1.Pod {
	if len(pod.Spec.EphemeralContainers) == 0 {
		return pod
	}
	out := pod.DeepCopy()
	out.Spec.EphemeralContainers = nil
	return out
}
