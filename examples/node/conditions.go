package main

import (
	"context"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/conditions"
)

// kubeletConditions are the pod conditions the kubelet owns (its status manager's
// PodConditionByKubelet): the node computes them; every other condition of the pod's status
// is another client's, which the kubelet keeps when it writes the status
// (mergePodStatus), and counts toward Ready when a readiness gate names it.
var kubeletConditions = []corev1.PodConditionType{
	corev1.PodScheduled, corev1.PodReady, corev1.PodInitialized, corev1.ContainersReady,
	corev1.PodReadyToStartContainers, corev1.PodResizePending, corev1.PodResizeInProgress,
	corev1.AllContainersRestarting,
}

// apiPodChanged takes the conditions other clients set on a pod's status through the API
// server (the pod informer's view): those of the pod's readiness gates are given to podlife
// (Pod.SetCondition), so that Ready waits for them as on a kubelet, and all of them are kept
// in the status the node writes (virtual-kubelet replaces the whole status).
func (pr *provider) apiPodChanged(pod *corev1.Pod) {
	var conds []corev1.PodCondition
	for _, c := range pod.Status.Conditions {
		if !slices.Contains(kubeletConditions, c.Type) {
			conds = append(conds, c)
		}
	}
	pr.mu.Lock()
	e, ok := pr.pods[key(pod.Namespace, pod.Name)]
	if !ok || e.pod.UID != pod.UID || e.deleting || equality.Semantic.DeepEqual(conds, e.apiConds) {
		pr.mu.Unlock()
		return
	}
	e.apiConds = conds
	pr.mu.Unlock()
	pr.sync(e)
}

// relayGates gives podlife the conditions of e's readiness gates that the API server has and
// podlife's status (st) does not have as such yet. It reports whether it set any.
func (pr *provider) relayGates(e *entry, p *podlife.Pod, st podlife.PodStatus) bool {
	pr.mu.Lock()
	gates := e.pod.Spec.ReadinessGates
	conds := e.apiConds
	pr.mu.Unlock()
	set := false
	for _, g := range gates {
		i := slices.IndexFunc(conds, func(c corev1.PodCondition) bool { return c.Type == g.ConditionType })
		if i < 0 {
			continue
		}
		c := conds[i]
		j := slices.IndexFunc(st.Conditions, func(pc podlife.PodCondition) bool { return string(pc.Type) == string(c.Type) })
		if j >= 0 && string(st.Conditions[j].Status) == string(c.Status) &&
			st.Conditions[j].Reason == c.Reason && st.Conditions[j].Message == c.Message {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := p.SetCondition(ctx, conditions.Type(c.Type), conditions.Status(c.Status), c.Reason, c.Message)
		cancel()
		if err != nil {
			pr.log.Warn("readiness gate", "podlife", e.name, "condition", c.Type, "err", err)
			continue
		}
		set = true
	}
	return set
}

// withAPIConditions adds to out the conditions other clients set through the API server that
// podlife does not report (apiPodChanged), as the kubelet keeps them.
func withAPIConditions(out *corev1.PodStatus, api []corev1.PodCondition) {
	for _, c := range api {
		if !slices.ContainsFunc(out.Conditions, func(o corev1.PodCondition) bool { return o.Type == c.Type }) {
			out.Conditions = append(out.Conditions, c)
		}
	}
}
