package main

import (
	"errors"
	"runtime"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/podlife/podlife/podlife"
)

// The kubelet's admission refuses some pods before it starts anything: it reports them Failed,
// with its admit handler's reason and the message "Pod was rejected: ..." (kubelet.rejectPod),
// and records the same reason as an event. podlife-node does the same for the refusals of
// podlife that have a kubelet counterpart; other refusals stay virtual-kubelet's ProviderFailed.

// The kubelet's rejection reasons (pkg/kubelet/sysctl ForbiddenReason, pkg/kubelet/lifecycle).
const (
	reasonSysctlForbidden               = "SysctlForbidden"
	reasonPodOSNotSupported             = "PodOSNotSupported"
	reasonPodOSSelectorNodeLabelNoMatch = "PodOSSelectorNodeLabelDoesNotMatch"
)

// admitOS is the kubelet's OS admission (lifecycle.rejectPodAdmissionBasedOnOSSelector and
// ...OSField): a pod labelled kubernetes.io/os (its label, as the kubelet reads it) or whose
// spec.os names another OS than this node's is rejected. It returns the reason and message,
// "" when the pod is admitted.
func admitOS(pod *corev1.Pod) (reason, message string) {
	if os, ok := pod.Labels[corev1.LabelOSStable]; ok && os != runtime.GOOS {
		return reasonPodOSSelectorNodeLabelNoMatch, "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label"
	}
	if pod.Spec.OS != nil && string(pod.Spec.OS.Name) != runtime.GOOS {
		return reasonPodOSNotSupported, "Failed to admit pod as the OS field doesn't match node OS"
	}
	return "", ""
}

// kubeletRejects returns the kubelet's reason and message for a pod podlife refused with err,
// or ok false when the kubelet has no admit handler of its own for that refusal: a
// *podlife.ValidationError whose problems are all forbidden sysctls is the kubelet's
// "forbidden sysctl" rejection.
func kubeletRejects(err error) (reason, message string, ok bool) {
	var ve *podlife.ValidationError
	if !errors.As(err, &ve) || len(ve.Errs) == 0 {
		return "", "", false
	}
	msgs := make([]string, len(ve.Errs))
	for i, fe := range ve.Errs {
		if !strings.HasPrefix(fe.Field, "spec.securityContext.sysctls[") {
			return "", "", false
		}
		msgs[i] = fe.Error()
	}
	return reasonSysctlForbidden, "forbidden sysctl: " + strings.Join(msgs, "; "), true
}

// reject reports the pod k as the kubelet reports a pod its admission refused: Failed, with
// reason and "Pod was rejected: "+message, and a Warning event of that reason. Nothing of it
// runs; DeletePod removes the entry.
func (pr *provider) reject(k string, pod *corev1.Pod, reason, message string) error {
	e := &entry{pod: pod.DeepCopy(), name: pr.podName(pod), done: make(chan struct{})}
	close(e.done) // no start goroutine
	e.pod.Status = corev1.PodStatus{QOSClass: pod.Status.QOSClass, Phase: corev1.PodFailed, Reason: reason, Message: "Pod was rejected: " + message}
	if err := pr.register(k, e); err != nil {
		pr.recorder.Event(pod, corev1.EventTypeWarning, reasonProviderFailed, err.Error())
		return err
	}
	pr.recorder.Event(pod, corev1.EventTypeWarning, reason, message)
	pr.mu.Lock()
	notify, st := pr.notify, e.pod.DeepCopy()
	pr.mu.Unlock()
	if notify != nil {
		notify(st)
	}
	pr.log.Info("pod rejected", "pod", k, "reason", reason, "message", message)
	return nil
}
