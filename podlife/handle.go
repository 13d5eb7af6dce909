package podlife

import (
	"context"
)

// Pod is a handle on a pod of the Runtime: a running (or finished) pod it manages. Its methods
// are safe for concurrent use: the pod's state belongs to its worker's owner loop (see the
// package doc's "Who owns what"), and reads come from the snapshot the loop last published. The
// pod's life belongs to the runtime, not to any caller's context: only Stop and Remove end it.
type Pod struct {
	w *podWorker
}

// handle returns the public handle on w.
func (w *podWorker) handle() *Pod {
	if w == nil {
		return nil
	}
	return &Pod{w: w}
}

// Name is the pod's name.
func (p *Pod) Name() string { return p.w.Name() }

// UID is a random identifier of this pod instance (it labels the pod's containerd objects).
func (p *Pod) UID() string { return p.w.UID() }

// Spec returns the pod's spec with defaults applied.
func (p *Pod) Spec() PodSpec { return p.w.Spec() }

// Container returns the container of that name (init and ephemeral containers included).
func (p *Pod) Container(name string) (*Container, error) { return p.w.Container(name) }

// Events returns the pod's recent events (up to 256), oldest first.
func (p *Pod) Events() []Event { return p.w.Events() }

// Subscribe returns the pod's events: the recent ones first, then new ones as they happen. The
// channel is closed when ctx is done. Delivery never blocks the pod (see Runtime.Subscribe).
func (p *Pod) Subscribe(ctx context.Context) <-chan Event { return p.w.Subscribe(ctx) }

// Status returns a snapshot of the pod's status. It does no I/O and does not wait for the pod's
// loop: it copies the last snapshot the loop published.
func (p *Pod) Status() PodStatus { return p.w.Status() }

// WaitFor blocks until cond holds for the pod's status, or ctx ends. It wakes on status changes,
// it does not poll.
func (p *Pod) WaitFor(ctx context.Context, cond func(PodStatus) bool) (PodStatus, error) {
	return p.w.WaitFor(ctx, cond)
}

// WaitStarted blocks until the start sequence finished and returns its error: nil, or a
// *StartError if the pod could not be set up (it has then been removed), or one wrapping
// ErrCreateContainerConfig if a container cannot be created with its settings (the pod stays).
func (p *Pod) WaitStarted(ctx context.Context) error { return p.w.WaitStarted(ctx) }

// WaitReady blocks until every container is ready and every readiness gate's condition is
// True, or the pod ends, or ctx ends.
func (p *Pod) WaitReady(ctx context.Context) error { return p.w.WaitReady(ctx) }

// Wait blocks until the pod reaches a terminal phase (Succeeded or Failed) and returns its status.
func (p *Pod) Wait(ctx context.Context) (PodStatus, error) { return p.w.Wait(ctx) }

// Stop stops the pod the kubelet's way and releases its network: a start still in progress is
// cancelled (a running postStart hook included), every container gets its preStop hook and stop
// signal in parallel, then SIGKILL once the grace period is over (at least 2 s after the stop
// signal); then the tasks are deleted, CNI DEL runs and the namespaces are unpinned. Containers,
// logs and volumes stay until Remove.
//
// ctx cancels the wait, not the stop. Stop may be called any number of times; every call waits
// for the same stop, a call from one of the pod's own hooks included (the stop abandons the
// hook when its time is up). Once the Runtime is closed, Stop fails with ErrClosed: use another
// Runtime's StopPod.
func (p *Pod) Stop(ctx context.Context, opts ...StopOption) error { return p.w.Stop(ctx, opts...) }

// Remove stops the pod if it is not stopped yet (with its grace period), then deletes its
// containers, snapshots, volumes, logs and state directory. After Remove the name can be reused.
// If a step fails (CNI DEL among them), Remove returns the error and the state directory stays,
// so that nothing is lost of what is left to release: Runtime.RemovePod of the name retries.
// Once the Runtime is closed, Remove of a pod not removed yet fails with ErrClosed: use another
// Runtime's RemovePod.
func (p *Pod) Remove(ctx context.Context) error { return p.w.Remove(ctx) }

// SetCondition sets a condition of the pod, as a controller patches a pod's status in
// Kubernetes: typically one named in the spec's ReadinessGates, so that the pod becomes
// Ready only once the condition is True. status is ConditionTrue, ConditionFalse or
// ConditionUnknown. The condition's last transition time changes when its status does. The
// conditions podlife computes itself (Ready, ContainersReady, Initialized, PodScheduled,
// PodReadyToStartContainers) cannot be set. The error wraps ErrInvalidSpec for an invalid
// type or status, and ErrClosed once the pod was removed or its Runtime closed.
func (p *Pod) SetCondition(t ConditionType, status, reason, message string) error {
	return p.w.SetCondition(t, status, reason, message)
}

// AddEphemeralContainer adds an ephemeral container to the running pod and starts it
// (`kubectl debug`). It returns once its process has started, or with the error that kept it
// from starting: a *ValidationError for a spec the API server would refuse, or a
// *PodSecurityError for one the Config's Pod Security level refuses (the pod is then
// unchanged), ErrPodStopping if the pod is stopping or ended, or a *StartError; once its
// validation passed, the container is in the pod's EphemeralContainerStatuses, even if it
// failed to start, and its name stays taken (Kubernetes never removes an ephemeral container).
//
// It is never restarted, whatever the pod's restart policy; it does not count in the pod's
// phase, conditions or readiness; the pod's stop stops it (preStop does not apply) and Remove
// removes it. If ctx ends first, the container goes on starting and the call returns ctx's
// error.
func (p *Pod) AddEphemeralContainer(ctx context.Context, spec EphemeralContainerSpec) (*Container, error) {
	return p.w.AddEphemeralContainer(ctx, spec)
}
