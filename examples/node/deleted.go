package main

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// finishDeletion deletes a removed pod from the API server with no grace period, as the
// kubelet's status manager does once a deleted pod's containers are gone and its final status
// is written. virtual-kubelet alone would do it only when the deletion's grace period has run
// out (its status updates do not resync a pod), so a pod that stops at once would stay
// Terminating for its whole grace period. It waits (a few seconds at most) for the terminated
// status the node reported to reach the API server, then deletes the object, its UID as a
// precondition so that a new pod of the same name is never deleted.
func (pr *provider) finishDeletion(ctx context.Context, pod *corev1.Pod) {
	if pr.objects.client == nil {
		return
	}
	pods := pr.objects.client.Pods(pod.Namespace)
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		cur, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || (err == nil && cur.UID != pod.UID) {
			return // deleted already (virtual-kubelet), or another pod of that name
		}
		if err == nil && !running(cur.Status) {
			break
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
	uid := pod.UID
	zero := int64(0)
	err := pods.Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero, Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		pr.log.Warn("delete pod from the API server", "pod", pod.Namespace+"/"+pod.Name, "err", err)
	}
}

// running reports whether a container of the status still runs (neither terminated nor
// waiting), as virtual-kubelet judges a deleted pod it may remove.
func running(st corev1.PodStatus) bool {
	for _, c := range append(st.InitContainerStatuses, st.ContainerStatuses...) {
		if c.State.Terminated == nil && c.State.Waiting == nil {
			return true
		}
	}
	return false
}
