package main

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube"
)

// In-place resize (InPlacePodVerticalScaling), as the kubelet does it: a client changes a
// running pod's container resources through the pod's resize subresource; the new spec reaches
// the node (UpdatePod), which asks podlife to resize each changed container (Pod.Resize: the
// cgroup updated in place, or the container restarted where its resizePolicy says so). While
// it does, the pod's status has the PodResizeInProgress condition; a resize podlife refuses as
// infeasible (a *ValidationError: what the API server lets through and podlife cannot do)
// leaves PodResizePending (reason Infeasible), one that cannot be done now (a memory limit
// below the container's usage) PodResizeInProgress with reason Error, as the kubelet reports
// them. The containers' statuses report the resources (status.go: containerResources).

// resizeState is an entry's resize conditions, which the node owns (the kubelet's), guarded by
// the provider's mu; busy serializes the entry's resizes.
type resizeState struct {
	conds []corev1.PodCondition
	busy  chan struct{}
}

// resizeContainers resizes the containers whose resources differ between old and pod (the spec
// as the API server has it now). It returns at once: the resize runs in its own goroutine,
// the PodResizeInProgress condition set before UpdatePod reports the new generation.
func (pr *provider) resizeContainers(e *entry, p *podlife.Pod, old, pod *corev1.Pod) {
	type change struct {
		name string
		res  podlife.Resources
	}
	var changes []change
	var errs []error
	for _, list := range []struct {
		path     *field.Path
		old, now []corev1.Container
	}{
		{field.NewPath("spec", "initContainers"), old.Spec.InitContainers, pod.Spec.InitContainers},
		{field.NewPath("spec", "containers"), old.Spec.Containers, pod.Spec.Containers},
	} {
		for i, c := range list.now {
			if i >= len(list.old) || list.old[i].Name != c.Name || equality.Semantic.DeepEqual(list.old[i].Resources, c.Resources) {
				continue
			}
			r, err := kube.ContainerResources(c.Resources, list.path.Index(i))
			if err != nil {
				errs = append(errs, err)
				continue
			}
			changes = append(changes, change{c.Name, r})
		}
	}
	if len(changes) == 0 && len(errs) == 0 {
		return
	}
	gen := pod.Generation
	if len(errs) > 0 {
		pr.setResizeCondition(e, resizeCondition(corev1.PodResizePending, corev1.PodReasonInfeasible, errors.Join(errs...).Error(), gen))
		return
	}
	pr.setResizeCondition(e, resizeCondition(corev1.PodResizeInProgress, "", "", gen))
	pr.recorder.Eventf(pod, corev1.EventTypeNormal, "ResizeStarted", "%s", resizeMessage("Pod resize started", pod, ""))
	pr.mu.Lock()
	if e.resize.busy == nil {
		e.resize.busy = make(chan struct{}, 1)
	}
	busy := e.resize.busy
	pr.mu.Unlock()
	go func() {
		busy <- struct{}{}
		defer func() { <-busy }()
		ctx, cancel := context.WithTimeout(pr.life, 5*time.Minute)
		defer cancel()
		var cond *corev1.PodCondition
		for _, ch := range changes {
			err := p.Resize(ctx, ch.name, ch.res)
			var verr *podlife.ValidationError
			switch {
			case err == nil:
				continue
			case errors.As(err, &verr):
				cond = resizeCondition(corev1.PodResizePending, corev1.PodReasonInfeasible, err.Error(), gen)
			default:
				cond = resizeCondition(corev1.PodResizeInProgress, corev1.PodReasonError, err.Error(), gen)
			}
			pr.recorder.Eventf(pod, corev1.EventTypeWarning, "ResizeError", "%s", resizeMessage("Pod resize error", pod, err.Error()))
			break
		}
		if cond == nil {
			pr.recorder.Eventf(pod, corev1.EventTypeNormal, "ResizeCompleted", "%s", resizeMessage("Pod resize completed", pod, ""))
		}
		pr.setResizeCondition(e, cond)
		pr.sync(e)
	}()
}

// resizeCondition is a resize condition of the pod's generation gen.
func resizeCondition(t corev1.PodConditionType, reason, msg string, gen int64) *corev1.PodCondition {
	return &corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason, Message: msg,
		ObservedGeneration: gen, LastTransitionTime: metav1.Now()}
}

// setResizeCondition replaces e's resize conditions with c (nil: none, the resize is done).
func (pr *provider) setResizeCondition(e *entry, c *corev1.PodCondition) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	e.resize.conds = nil
	if c != nil {
		e.resize.conds = []corev1.PodCondition{*c}
	}
}

// withResizeConditions adds e's resize conditions to out (provider.current, under mu).
func withResizeConditions(out *corev1.PodStatus, conds []corev1.PodCondition) {
	out.Conditions = append(out.Conditions, conds...)
}

// resizeMessage is a resize event's message as the kubelet writes it (its podResizeMessage):
// prefix, then the containers' resources of the pod's spec, its generation and the error, in
// JSON.
func resizeMessage(prefix string, pod *corev1.Pod, errMsg string) string {
	type alloc struct {
		Name      string                      `json:"name"`
		Resources corev1.ResourceRequirements `json:"resources,omitempty"`
	}
	summary := struct {
		InitContainers []alloc `json:"initContainers,omitempty"`
		Containers     []alloc `json:"containers,omitempty"`
		Generation     int64   `json:"generation"`
		Error          string  `json:"error,omitempty"`
	}{Generation: pod.Generation, Error: errMsg}
	for _, c := range pod.Spec.InitContainers {
		summary.InitContainers = append(summary.InitContainers, alloc{c.Name, c.Resources})
	}
	for _, c := range pod.Spec.Containers {
		summary.Containers = append(summary.Containers, alloc{c.Name, c.Resources})
	}
	b, err := json.Marshal(summary)
	if err != nil {
		return prefix
	}
	return prefix + ": " + string(b)
}

// containerResources converts a container's allocated and actual resources (podlife's
// ContainerStatus) to the status' allocatedResources (requests) and resources, as the kubelet
// reports them: CPU and memory only, a memory request defaulting to the limit.
func containerResources(c podlife.ContainerStatus) (corev1.ResourceList, *corev1.ResourceRequirements) {
	requests := func(r podlife.Resources) corev1.ResourceList {
		var out corev1.ResourceList
		add := func(name corev1.ResourceName, q *resource.Quantity) {
			if out == nil {
				out = corev1.ResourceList{}
			}
			out[name] = *q
		}
		if r.CPURequest > 0 {
			add(corev1.ResourceCPU, resource.NewMilliQuantity(r.CPURequest, resource.DecimalSI))
		}
		mem := r.MemoryRequest
		if mem == 0 {
			mem = r.MemoryLimit
		}
		if mem > 0 {
			add(corev1.ResourceMemory, resource.NewQuantity(mem, resource.BinarySI))
		}
		return out
	}
	alloc := requests(c.AllocatedResources)
	if c.Resources == nil {
		return alloc, nil
	}
	res := &corev1.ResourceRequirements{Requests: requests(*c.Resources)}
	if c.Resources.CPULimit > 0 || c.Resources.MemoryLimit > 0 {
		res.Limits = corev1.ResourceList{}
		if c.Resources.CPULimit > 0 {
			res.Limits[corev1.ResourceCPU] = *resource.NewMilliQuantity(c.Resources.CPULimit, resource.DecimalSI)
		}
		if c.Resources.MemoryLimit > 0 {
			res.Limits[corev1.ResourceMemory] = *resource.NewQuantity(c.Resources.MemoryLimit, resource.BinarySI)
		}
	}
	return alloc, res
}
