package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
)

// A pod's start sequence (image, sandbox, init containers, sidecars, postStart hooks) may never
// finish: an init container failing forever, a sidecar whose postStart hook keeps failing.
// virtual-kubelet calls CreatePod from a few workers (vknode.go), and a CreatePod that waited
// for the start would take a worker for as long: with as many such pods as workers, the node
// would create and delete no other pod. So CreatePod returns once the pod is admitted (converted,
// its name claimed, accepted by podlife) and the start goes on in a goroutine of the provider,
// as the kubelet's pod workers do it: the pod's status (Pending, its containers' Waiting
// reasons) is reported while it starts, DeletePod stops a pod still starting, and a start that
// failed is retried with a back-off.

// Back-off between the attempts of a pod's start that failed (the kubelet's image pull and
// crash loop back-off).
const (
	startBackoffInitial = 10 * time.Second
	startBackoffMax     = 5 * time.Minute
)

// admit starts spec with podlife and returns the pod as soon as podlife has accepted it
// (validated, admitted, registered): Runtime.Run with a context already done returns then, and
// "ctx cancels the wait, not the pod". An error with a nil pod is a refusal, or a start that
// failed at once (the pod has then been removed).
func (pr *provider) admit(spec podlife.PodSpec) (*podlife.Pod, error) {
	now, cancel := context.WithCancel(context.Background())
	cancel()
	p, err := pr.rt.Run(now, spec)
	if p != nil {
		return p, nil
	}
	return nil, err
}

// launch runs the start of the registered entry e in a goroutine of the provider; p is the pod
// when CreatePod admitted it already, nil when the goroutine starts (or adopts) it. DeletePod
// and close end the goroutine.
func (pr *provider) launch(e *entry, spec podlife.PodSpec, p *podlife.Pod) {
	ctx, cancel := context.WithCancel(pr.life)
	pr.mu.Lock()
	e.p, e.cancel, e.done = p, cancel, make(chan struct{})
	pr.mu.Unlock()
	pr.starts.Add(1)
	go func() {
		defer pr.starts.Done()
		defer close(e.done)
		defer cancel()
		pr.follow(ctx, e, spec)
	}()
}

// follow waits for the start of e's pod to finish, reporting its status meanwhile (watch
// reports each change), and starts it again with a back-off while the start fails. It returns
// when the start has finished or ctx ends (the pod deleted, or the node stopping: the start
// then goes on for the next process of the node to adopt, as before).
func (pr *provider) follow(ctx context.Context, e *entry, spec podlife.PodSpec) {
	pr.mu.Lock()
	k := key(e.pod.Namespace, e.pod.Name)
	pr.mu.Unlock()
	backoff := startBackoffInitial
	for {
		pr.mu.Lock()
		p := e.p
		pr.mu.Unlock()
		var err error
		if p == nil {
			if p, err = pr.start(ctx, spec); p != nil {
				pr.mu.Lock()
				e.p = p
				pr.mu.Unlock()
			}
		}
		if p != nil {
			pr.sync(e)
			pr.startEphemeral(e) // ephemeral.go: added while the pod was not admitted yet
			err = p.WaitStarted(ctx)
			if err == nil || errors.Is(err, podlife.ErrCreateContainerConfig) {
				// A container refused at creation (runAsNonRoot with a root user) is the
				// kubelet's CreateContainerConfigError: the pod stays, the container Waiting
				// with that reason in its status; it is not a failed start to retry.
				pr.log.Info("pod started", "pod", k, "podlife", spec.Name, "err", err)
				pr.sync(e)
				return
			}
		}
		if ctx.Err() != nil {
			return
		}
		if p != nil { // the start failed: podlife removed the pod
			pr.mu.Lock()
			e.p = nil
			pr.mu.Unlock()
		}
		err = fmt.Errorf("start pod %s as %s: %w", k, spec.Name, err)
		pr.log.Warn("start failed", "pod", k, "err", err, "retry", backoff)
		if !pr.startFailed(e, err) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, startBackoffMax)
	}
}

// startFailed reports a failed start as virtual-kubelet reports a CreatePod error: a
// ProviderFailed event and status, Pending (Failed for a pod that is never restarted, unless
// the kubelet would try again: kubeletRetries). It reports whether the start is to be tried
// again.
func (pr *provider) startFailed(e *entry, err error) bool {
	pr.mu.Lock()
	pod := e.pod.DeepCopy()
	retry := pod.Spec.RestartPolicy != corev1.RestartPolicyNever
	container, reason, retried := kubeletRetries(err)
	pod.Status.Phase = corev1.PodPending
	if retried {
		// As the kubelet's: the container waits with its reason, the others are created.
		st := waitingStatus(pod, reasonContainerCreating, "")
		st.InitContainerStatuses = withWaiting(st.InitContainerStatuses, container, reason, err.Error())
		st.ContainerStatuses = withWaiting(st.ContainerStatuses, container, reason, err.Error())
		pod.Status = st
		retry = true
	} else if !retry {
		pod.Status.Phase = corev1.PodFailed
	}
	pod.Status.Reason, pod.Status.Message = reasonProviderFailed, err.Error()
	e.pod.Status = *pod.Status.DeepCopy()
	notify := pr.notify
	deleting := e.deleting
	pr.mu.Unlock()
	pr.recorder.Event(pod, corev1.EventTypeWarning, reasonProviderFailed, err.Error())
	if notify != nil && !deleting {
		notify(pod)
	}
	return retry
}

// kubeletRetries tells whether the kubelet tries a failed start again whatever the pod's
// restart policy, because no container of the pod ran: a container it could not create
// (CreateContainerError) or whose image it could not pull (ErrImagePull, when podlife's
// ImagePullBackOff is off), or the pod's sandbox or network. It returns the container and its
// kubelet waiting reason ("" for the pod's sandbox or network). A container that was created
// but failed to start (StartError) or whose postStart hook failed ran: not retried for a
// restartPolicy Never pod.
func kubeletRetries(err error) (container, reason string, ok bool) {
	var se *podlife.StartError
	if !errors.As(err, &se) {
		return "", "", false
	}
	switch se.Step {
	case podlife.StepSandbox, podlife.StepNetwork:
		return "", "", true
	case podlife.StepPull:
		return se.Container, string(reasons.ErrImagePull), true
	case podlife.StepCreate:
		return se.Container, string(reasons.CreateContainerError), true
	}
	return "", "", false
}

// withWaiting sets the waiting reason and message of the container named name in list.
func withWaiting(list []corev1.ContainerStatus, name, reason, message string) []corev1.ContainerStatus {
	for i := range list {
		if name != "" && list[i].Name == name {
			list[i].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}}
		}
	}
	return list
}

// abandon ends the start goroutine of e, if any, and returns e's pod once it has returned (nil
// if it left none).
func (pr *provider) abandon(e *entry) *podlife.Pod {
	pr.mu.Lock()
	cancel, done := e.cancel, e.done
	pr.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return e.p
}

// close ends the start goroutines and the token refreshes and waits for them; the starts
// themselves go on (podlife's Runtime.Close cancels them), for the node's next process to adopt
// as interrupted starts, and the pods keep their volumes, refreshed again by that process.
func (pr *provider) close() {
	pr.stop()
	pr.starts.Wait()
	if pr.tokens != nil {
		pr.tokens.Close()
	}
}

// removeLeft removes what may be left of a deleted pod that has no podlife handle (its start
// failed, or an adoption was cut short), then forgets its saved v1.Pod.
func (pr *provider) removeLeft(ctx context.Context, name string, opts []podlife.StopOption) error {
	if err := pr.removePod(ctx, name, opts...); err != nil && !errors.Is(err, podlife.ErrNotFound) {
		return err
	}
	pr.forget(name)
	return nil
}

// removePod removes the pod of that name, whichever process manages it (see podlife.Pod).
func (pr *provider) removePod(ctx context.Context, name string, opts ...podlife.StopOption) error {
	p, err := pr.rt.Pod(name)
	if err != nil {
		return err
	}
	return p.Remove(ctx, opts...)
}
