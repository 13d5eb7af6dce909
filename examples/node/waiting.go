package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/podlife/podlife/examples/node/internal/volumes"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube"
)

// A pod that needs a ConfigMap or Secret (or a key of one) the API server does not have yet is
// not refused on a kubelet: it stays Pending, its containers Waiting, and starts once the
// object appears. A missing volume source keeps the volume from mounting (reason
// ContainerCreating, a FailedMount event "MountVolume.SetUp failed for volume ...: configmap
// \"x\" not found"); a missing env source fails the container's configuration (reason
// CreateContainerConfigError, message "configmap \"x\" not found"). References marked optional
// do not wait (kube.Convert skips them). The node does the same: CreatePod registers such a pod
// with that status, and a goroutine of the provider converts it again, with a back-off, until
// it can be admitted.

// Waiting reasons of the containers of a pod whose objects are missing (the kubelet's).
const (
	reasonContainerCreating          = "ContainerCreating"
	reasonCreateContainerConfigError = "CreateContainerConfigError"
	reasonFailedMount                = "FailedMount"
)

// Back-off between the conversions of a pod waiting for its objects.
const (
	objectWaitInitial = time.Second
	objectWaitMax     = 10 * time.Second
)

// missingObjects returns why pod cannot start without the ConfigMaps and Secrets objs lacks,
// or the keys they lack: the kubelet's waiting reason, its message, and for a volume the
// FailedMount event's message; reason is "" when every non-optional reference is in objs.
func missingObjects(pod *corev1.Pod, objs kube.Objects) (reason, message, event string) {
	for _, v := range pod.Spec.Volumes {
		var msg string
		switch {
		case v.ConfigMap != nil && !isTrue(v.ConfigMap.Optional):
			msg = volumeMissing(objs, "configmap", v.ConfigMap.Name, v.ConfigMap.Items)
		case v.Secret != nil && !isTrue(v.Secret.Optional):
			msg = volumeMissing(objs, "secret", v.Secret.SecretName, v.Secret.Items)
		case v.Projected != nil:
			for _, s := range v.Projected.Sources {
				if msg == "" && s.ConfigMap != nil && !isTrue(s.ConfigMap.Optional) {
					msg = volumeMissing(objs, "configmap", s.ConfigMap.Name, s.ConfigMap.Items)
				}
				if msg == "" && s.Secret != nil && !isTrue(s.Secret.Optional) {
					msg = volumeMissing(objs, "secret", s.Secret.Name, s.Secret.Items)
				}
			}
		}
		if msg != "" {
			return reasonContainerCreating, "", fmt.Sprintf("MountVolume.SetUp failed for volume %q : %s", v.Name, msg)
		}
	}
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range cs {
			for _, e := range c.Env {
				var msg string
				switch {
				case e.ValueFrom == nil:
				case e.ValueFrom.ConfigMapKeyRef != nil && !isTrue(e.ValueFrom.ConfigMapKeyRef.Optional):
					r := e.ValueFrom.ConfigMapKeyRef
					msg = envMissing(pod, objs, "configmap", r.Name, r.Key)
				case e.ValueFrom.SecretKeyRef != nil && !isTrue(e.ValueFrom.SecretKeyRef.Optional):
					r := e.ValueFrom.SecretKeyRef
					msg = envMissing(pod, objs, "secret", r.Name, r.Key)
				}
				if msg != "" {
					return reasonCreateContainerConfigError, msg, ""
				}
			}
			for _, ef := range c.EnvFrom {
				var msg string
				if r := ef.ConfigMapRef; r != nil && !isTrue(r.Optional) {
					msg = envMissing(pod, objs, "configmap", r.Name, "")
				}
				if r := ef.SecretRef; r != nil && !isTrue(r.Optional) {
					msg = envMissing(pod, objs, "secret", r.Name, "")
				}
				if msg != "" {
					return reasonCreateContainerConfigError, msg, ""
				}
			}
		}
	}
	return "", "", ""
}

// keys returns the keys of the ConfigMap (kind "configmap") or Secret name in objs, and
// whether it is there.
func keys(objs kube.Objects, kind, name string) (map[string]bool, bool) {
	out := map[string]bool{}
	if kind == "configmap" {
		cm := objs.ConfigMaps[name]
		if cm == nil {
			return nil, false
		}
		for k := range cm.Data {
			out[k] = true
		}
		for k := range cm.BinaryData {
			out[k] = true
		}
		return out, true
	}
	sec := objs.Secrets[name]
	if sec == nil {
		return nil, false
	}
	for k := range sec.Data {
		out[k] = true
	}
	for k := range sec.StringData {
		out[k] = true
	}
	return out, true
}

// volumeMissing is the kubelet's error setting up a volume of the object (its items' keys
// included), "" if there is none.
func volumeMissing(objs kube.Objects, kind, name string, items []corev1.KeyToPath) string {
	have, ok := keys(objs, kind, name)
	if !ok {
		return fmt.Sprintf("%s %q not found", kind, name)
	}
	for _, it := range items {
		if have[it.Key] {
			continue
		}
		if kind == "configmap" {
			return "configmap references non-existent config key: " + it.Key
		}
		return "references non-existent secret key: " + it.Key
	}
	return ""
}

// envMissing is the kubelet's error making a container's environment from the object (and
// key, if not ""), "" if there is none.
func envMissing(pod *corev1.Pod, objs kube.Objects, kind, name, key string) string {
	have, ok := keys(objs, kind, name)
	if !ok {
		return fmt.Sprintf("%s %q not found", kind, name)
	}
	if key == "" || have[key] {
		return ""
	}
	object := "ConfigMap"
	if kind == "secret" {
		object = "Secret"
	}
	return fmt.Sprintf("couldn't find key %s in %s %s/%s", key, object, pod.Namespace, name)
}

func isTrue(b *bool) bool { return b != nil && *b }

// containerConfigError returns the message of a conversion error that the kubelet meets only
// when it creates the container, from the pod as it is then: a subPathExpr that expands to
// nothing valid (a variable missing or empty, such as an annotation not set yet, or an
// absolute path). The kubelet does not fail the pod for it: the container waits with reason
// CreateContainerConfigError and is tried again at each sync, so that an update of the pod
// (the annotation added) lets it start. ok is false for any other error, and for an error
// with other issues besides.
func containerConfigError(err error) (message string, ok bool) {
	if c, ok := err.(interface{ Cause() error }); ok { // virtual-kubelet's errdefs
		err = c.Cause()
	}
	var le *kube.LoadError
	if !errors.As(err, &le) || len(le.Issues) == 0 {
		return "", false
	}
	var msgs []string
	for _, is := range le.Issues {
		if !strings.HasSuffix(is.Path, ".subPathExpr") {
			return "", false
		}
		m := is.Message
		if i := strings.LastIndex(m, `": `); i >= 0 { // `Invalid value: "$(A)/x": missing value for A`
			m = m[i+3:]
		}
		msgs = append(msgs, m)
	}
	return strings.Join(msgs, "; "), true
}

// convertOrWait converts pod as convertObjects does (recording its issues as events), except
// for a containerConfigError: then reason is CreateContainerConfigError and message the
// kubelet's, and the pod is to wait (nothing recorded).
func (pr *provider) convertOrWait(pod *corev1.Pod, objs kube.Objects) (spec podlife.PodSpec, vols []volumes.NodeVolume, reason, message string, err error) {
	spec, vols, err = pr.convertObjects(pod, objs, false)
	if err == nil {
		return spec, vols, "", "", nil
	}
	if msg, ok := containerConfigError(err); ok {
		return podlife.PodSpec{}, nil, reasonCreateContainerConfigError, msg, nil
	}
	spec, vols, err = pr.convertObjects(pod, objs, true) // again, to record the issues
	return spec, vols, "", "", err
}

// waitingStatus is the kubelet's status of pod while its containers wait for reason: Pending,
// each container Waiting (the containers behind init containers PodInitializing).
func waitingStatus(pod *corev1.Pod, reason, message string) corev1.PodStatus {
	st := corev1.PodStatus{Phase: corev1.PodPending, QOSClass: pod.Status.QOSClass}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			st.Conditions = append(st.Conditions, c)
		}
	}
	waiting := func(c corev1.Container, reason, message string) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: c.Name, Image: c.Image,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}}}
	}
	for _, c := range pod.Spec.InitContainers {
		st.InitContainerStatuses = append(st.InitContainerStatuses, waiting(c, reason, message))
	}
	for _, c := range pod.Spec.Containers {
		if len(pod.Spec.InitContainers) > 0 {
			st.ContainerStatuses = append(st.ContainerStatuses, waiting(c, "PodInitializing", ""))
			continue
		}
		st.ContainerStatuses = append(st.ContainerStatuses, waiting(c, reason, message))
	}
	return st
}

// createWaiting registers pod, whose objects are missing, with the waiting status of reason
// and runs its wait for them in a goroutine of the provider (ended by DeletePod or close).
func (pr *provider) createWaiting(k string, pod *corev1.Pod, reason, message, event string) error {
	e := &entry{pod: pod.DeepCopy(), name: pr.podName(pod)}
	e.pod.Status = waitingStatus(pod, reason, message)
	ctx, cancel := context.WithCancel(pr.life)
	e.cancel, e.done = cancel, make(chan struct{})
	if err := pr.register(k, e); err != nil {
		cancel()
		pr.recorder.Event(pod, corev1.EventTypeWarning, reasonProviderFailed, err.Error())
		return err
	}
	pr.report(e, reason, message, event)
	pr.log.Info("pod waits for its objects", "pod", k, "reason", reason, "message", message+event)
	pr.starts.Add(1)
	go func() {
		defer pr.starts.Done()
		defer close(e.done)
		defer cancel()
		pr.awaitObjects(ctx, k, e)
	}()
	return nil
}

// report records the event of a waiting pod (if any) and reports its status.
func (pr *provider) report(e *entry, reason, message, event string) {
	pr.mu.Lock()
	pod := e.pod.DeepCopy()
	notify := pr.notify
	pr.mu.Unlock()
	if event != "" {
		pr.recorder.Event(pod, corev1.EventTypeWarning, reasonFailedMount, event)
	} else {
		pr.recorder.Event(pod, corev1.EventTypeWarning, "Failed", "Error: "+message)
	}
	if notify != nil {
		notify(pod)
	}
}

// awaitObjects converts e's pod again, with a back-off, until its objects are there, then
// admits and starts it as CreatePod does.
func (pr *provider) awaitObjects(ctx context.Context, k string, e *entry) {
	delay := objectWaitInitial
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		delay = min(2*delay, objectWaitMax)
		pr.mu.Lock()
		pod := e.pod.DeepCopy()
		pr.mu.Unlock()
		objs, err := pr.objects.objects(ctx, pod)
		if err != nil {
			pr.log.Warn("get objects", "pod", k, "err", err)
			continue
		}
		if reason, message, event := missingObjects(pod, objs); reason != "" {
			if !sameWaiting(pod.Status, reason, message) {
				pr.mu.Lock()
				e.pod.Status = waitingStatus(pod, reason, message)
				pr.mu.Unlock()
				pr.report(e, reason, message, event)
			}
			continue
		}
		spec, vols, reason, message, err := pr.convertOrWait(pod, objs)
		if reason != "" { // a container that cannot be created yet (a subPathExpr)
			if !sameWaiting(pod.Status, reason, message) {
				pr.mu.Lock()
				e.pod.Status = waitingStatus(pod, reason, message)
				pr.mu.Unlock()
				pr.report(e, reason, message, "")
			}
			continue
		}
		if err == nil {
			err = pr.claim(ctx, spec.Name, pod)
		}
		if err == nil && len(vols) > 0 {
			if err = pr.tokens.Project(ctx, spec.Name, pod, vols, pr.resolver(spec.Name)); err != nil {
				pr.removeVolumes(spec.Name)
				err = fmt.Errorf("projected volumes: %w", err)
			}
		}
		if err != nil {
			if ctx.Err() != nil || !pr.startFailed(e, err) {
				return
			}
			continue
		}
		pr.save(spec.Name, pr.services.Annotate(spec.Name, pod))
		pr.log.Info("pod's objects found", "pod", k, "podlife", spec.Name)
		pr.follow(ctx, e, spec)
		return
	}
}

// sameWaiting reports whether st is the waiting status of reason and message already.
func sameWaiting(st corev1.PodStatus, reason, message string) bool {
	for _, cs := range [][]corev1.ContainerStatus{st.InitContainerStatuses, st.ContainerStatuses} {
		for _, c := range cs {
			if w := c.State.Waiting; w != nil && (w.Reason == reason && w.Message == message) {
				return true
			}
		}
	}
	return false
}
