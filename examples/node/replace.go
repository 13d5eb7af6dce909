package main

import (
	"context"

	corev1 "k8s.io/api/core/v1"
)

// A pod may be deleted and created again under the same name while the node still removes the
// first one: virtual-kubelet force-deletes a pod that is no longer running from the API server
// without waiting for the provider, and keys its pods by namespace/name, so it hands the new
// pod to UpdatePod, the old one still being the provider's. The kubelet tells pods apart by UID;
// so does the node: a pod of another UID replaces the entry once the old pod is stopped and
// removed (DeletePod's path, with the old pod's grace period), then it is created as any other.

// replaceLater makes pod the replacement of entry e (another UID) and has e's pod removed.
func (pr *provider) replaceLater(ctx context.Context, e *entry, pod *corev1.Pod) error {
	pr.mu.Lock()
	e.replacement = pod.DeepCopy()
	old := e.pod.DeepCopy()
	pr.mu.Unlock()
	pr.log.Info("pod replaced by another of the same name", "pod", key(pod.Namespace, pod.Name), "old", old.UID, "new", pod.UID)
	return pr.DeletePod(ctx, old)
}

// recreate creates the replacement of a removed pod; a refusal is reported in its status, as
// virtual-kubelet reports CreatePod's errors.
func (pr *provider) recreate(pod *corev1.Pod) {
	err := pr.CreatePod(pr.life, pod)
	if err == nil {
		return
	}
	pr.log.Warn("create replacement pod", "pod", key(pod.Namespace, pod.Name), "err", err)
	pod = pod.DeepCopy()
	pod.Status.Phase = corev1.PodPending
	if pod.Spec.RestartPolicy == corev1.RestartPolicyNever {
		pod.Status.Phase = corev1.PodFailed
	}
	pod.Status.Reason, pod.Status.Message = reasonProviderFailed, err.Error()
	pr.mu.Lock()
	notify := pr.notify
	pr.mu.Unlock()
	if notify != nil {
		notify(pod)
	}
}
