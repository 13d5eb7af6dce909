package podlife

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// ErrNotLocal is wrapped by the error of a Pod method that needs the pod's worker (Container,
// Wait, WaitFor, WaitStarted, WaitReady) when this Runtime does not manage the pod: another
// process does, or none (see PodRecord.Managed). Adopt takes a pod with no manager over.
var ErrNotLocal = errors.New("podlife: the pod is not managed by this Runtime")

// Pod is a handle on a pod of the Runtime's state directory, whichever process manages it:
// this Runtime, another live process using the same state directory (a CLI's background
// supervisor, an agent), or none, if its manager died or closed its Runtime (see PodRecord).
//
// Stop, Remove, Exec, Attach, Logs, SetCondition and AddEphemeralContainer work the same
// wherever the manager is: a pod of this Runtime is acted on by its worker; a pod another
// process manages is acted on by that process, asked through its control socket; a pod with no
// manager is acted on here (see Stop). Which case holds is decided at each call, so a handle
// stays valid when this Runtime adopts the pod later (Adopt).
//
// The read-side methods answer from the pod's worker when this Runtime manages the pod, and
// from the pod's record otherwise: Name, UID, Spec and Status always answer (Status as
// LookupPod shows it), Events and Subscribe have no events to give, and Container and the
// Wait methods fail with an error wrapping ErrNotLocal.
//
// Its methods are safe for concurrent use: a local pod's state belongs to its worker's owner
// loop (see the package doc's "Who owns what"), and reads come from the snapshot the loop last
// published. The pod's life belongs to the runtime, not to any caller's context: only Stop and
// Remove end it.
type Pod struct {
	rt   *Runtime
	name string
	// w is the worker the handle was made from (Run, Adopt, Pods, Pod of a pod this Runtime
	// manages): the handle stays on it after it was removed or its Runtime closed. nil for a
	// handle made by name of a pod this Runtime did not manage: see local.
	w *podWorker
}

// handle returns the public handle on w.
func (w *podWorker) handle() *Pod {
	if w == nil {
		return nil
	}
	return &Pod{rt: w.rt, name: w.name, w: w}
}

// local returns the worker of the pod if this Runtime manages it (or managed it when the handle
// was made), nil if another process or none manages it.
func (p *Pod) local() *podWorker {
	if p.w != nil {
		return p.w
	}
	if w, err := p.rt.worker(p.name); err == nil {
		return w
	}
	return nil
}

// Name is the pod's name.
func (p *Pod) Name() string { return p.name }

// UID is a random identifier of this pod instance (it labels the pod's containerd objects). For
// a pod this Runtime does not manage, it is the UID its record names ("" if it has none).
func (p *Pod) UID() string {
	if w := p.local(); w != nil {
		return w.UID()
	}
	rec, err := p.rt.readRecord(p.name)
	if err != nil {
		return ""
	}
	return rec.UID
}

// Spec returns the pod's spec with defaults applied. For a pod this Runtime does not manage, it
// is the spec its record keeps, which has none of what is not persisted: Go hooks and probers,
// the start policy, SpecOpts, pull credentials, env values, command and args, files volumes'
// data (the zero PodSpec if the record cannot be read).
func (p *Pod) Spec() PodSpec {
	if w := p.local(); w != nil {
		return w.Spec()
	}
	spec, err := p.rt.recordSpec(p.name)
	if err != nil {
		return PodSpec{}
	}
	return spec
}

// Container returns the container of that name (init and ephemeral containers included). For
// a pod this Runtime does not manage, the error wraps ErrNotLocal: its containers' statuses are
// in Status.
func (p *Pod) Container(name string) (*Container, error) {
	w, err := p.need("container")
	if err != nil {
		return nil, err
	}
	return w.Container(name)
}

// Events returns the pod's recent events (up to 256), oldest first. A pod this Runtime does not
// manage has none here (its events are its manager's).
func (p *Pod) Events() []Event {
	if w := p.local(); w != nil {
		return w.Events()
	}
	return nil
}

// Subscribe returns the pod's events: the recent ones first, then new ones as they happen. The
// channel is closed when ctx is done. Delivery never blocks the pod (see Runtime.Subscribe). For
// a pod this Runtime does not manage, the channel is closed at once.
func (p *Pod) Subscribe(ctx context.Context) <-chan Event {
	if w := p.local(); w != nil {
		return w.Subscribe(ctx)
	}
	ch := make(chan Event)
	close(ch)
	return ch
}

// Status returns a snapshot of the pod's status. For a pod of this Runtime it does no I/O and
// does not wait for the pod's loop: it copies the last snapshot the loop published. For a pod
// this Runtime does not manage, it is the status LookupPod shows (its manager's latest, or
// without a manager the last one corrected with what containerd knows), which reads the state
// directory and asks containerd; a pod that is gone gives a status with only its Name.
func (p *Pod) Status() PodStatus {
	if w := p.local(); w != nil {
		return w.Status()
	}
	rec, err := p.rt.LookupPod(context.Background(), p.name)
	if err != nil {
		return PodStatus{Name: p.name}
	}
	return rec.Status
}

// WaitFor blocks until cond holds for the pod's status, or ctx ends. It wakes on status changes,
// it does not poll. For a pod this Runtime does not manage, the error wraps ErrNotLocal.
func (p *Pod) WaitFor(ctx context.Context, cond func(PodStatus) bool) (PodStatus, error) {
	w, err := p.need("wait")
	if err != nil {
		return p.Status(), err
	}
	return w.WaitFor(ctx, cond)
}

// WaitStarted blocks until the start sequence finished and returns its error: nil, or a
// *StartError if the pod could not be set up (it has then been removed), or one wrapping
// ErrCreateContainerConfig if a container cannot be created with its settings (the pod stays).
// For a pod this Runtime does not manage, the error wraps ErrNotLocal.
func (p *Pod) WaitStarted(ctx context.Context) error {
	w, err := p.need("wait")
	if err != nil {
		return err
	}
	return w.WaitStarted(ctx)
}

// WaitReady blocks until every container is ready and every readiness gate's condition is
// True, or the pod ends, or ctx ends. For a pod this Runtime does not manage, the error wraps
// ErrNotLocal.
func (p *Pod) WaitReady(ctx context.Context) error {
	w, err := p.need("wait")
	if err != nil {
		return err
	}
	return w.WaitReady(ctx)
}

// Wait blocks until the pod reaches a terminal phase (Succeeded or Failed) and returns its
// status. For a pod this Runtime does not manage, the error wraps ErrNotLocal.
func (p *Pod) Wait(ctx context.Context) (PodStatus, error) {
	w, err := p.need("wait")
	if err != nil {
		return p.Status(), err
	}
	return w.Wait(ctx)
}

// need returns the pod's worker, or an error wrapping ErrNotLocal for op.
func (p *Pod) need(op string) (*podWorker, error) {
	if w := p.local(); w != nil {
		return w, nil
	}
	return nil, fmt.Errorf("pod %q: %s: %w", p.name, op, ErrNotLocal)
}

// Stop stops the pod the kubelet's way and releases its network: a start still in progress is
// cancelled (a running postStart hook included), every container gets its preStop hook and stop
// signal in parallel, then SIGKILL once the grace period is over (at least 2 s after the stop
// signal); then the tasks are deleted, CNI DEL runs and the namespaces are unpinned. Containers,
// logs and volumes stay until Remove.
//
// A pod another process manages is stopped by that process, asked through its control socket,
// the same way. A pod with no manager left is stopped here, by the same stop on the pod adopted
// for the purpose from the spec its record keeps (see Adopt): its containers get their stop
// signal, then SIGKILL after the grace period (preStop hooks, which lived in the manager, do
// not run), and its network is released; the stopped pod is then left unmanaged again.
//
// ctx cancels the wait, not the stop. Stop may be called any number of times; every call waits
// for the same stop, a call from one of the pod's own hooks included (the stop abandons the
// hook when its time is up). Once the Runtime is closed, Stop fails with ErrClosed: use a
// handle of another Runtime on the state directory.
func (p *Pod) Stop(ctx context.Context, opts ...StopOption) error {
	if w := p.local(); w != nil {
		return w.Stop(ctx, opts...)
	}
	if err := p.open(); err != nil {
		return err
	}
	return p.rt.foreign(ctx, p.name, "stop", opts)
}

// Remove stops the pod if it is not stopped yet (with its grace period, or the one opts give),
// then deletes its containers, snapshots, volumes, logs and state directory, wherever its
// manager is (see Stop). After Remove the name can be reused. Removing a pod whose manager died
// is how its leftovers are cleaned up: containers, tasks, snapshots, lease, network attachment,
// pinned namespaces, mounts and state directory. If a step fails (CNI DEL among them), Remove
// returns the error and the state directory stays, so that nothing is lost of what is left to
// release: a later Remove (of a handle got again with Runtime.Pod) retries. Once the Runtime is
// closed, Remove of a pod not removed yet fails with ErrClosed.
func (p *Pod) Remove(ctx context.Context, opts ...StopOption) error {
	if w := p.local(); w != nil {
		if len(opts) > 0 {
			if err := w.Stop(ctx, opts...); err != nil {
				return err
			}
		}
		return w.Remove(ctx)
	}
	if err := p.open(); err != nil {
		return err
	}
	return p.rt.foreign(ctx, p.name, "remove", opts)
}

// open fails with ErrClosed once the Runtime is closed: it acts on no pod any more.
func (p *Pod) open() error {
	if p.rt.isClosed() {
		return fmt.Errorf("pod %q: %w", p.name, ErrClosed)
	}
	return nil
}

// SetCondition sets a condition of the pod, as a controller patches a pod's status in
// Kubernetes: typically one named in the spec's ReadinessGates, so that the pod becomes Ready
// only once the condition is True. status is ConditionTrue, ConditionFalse or
// ConditionUnknown. The condition's last transition time changes when its status does. The
// conditions podlife computes itself (Ready, ContainersReady, Initialized, PodScheduled,
// PodReadyToStartContainers) cannot be set. A pod another process manages gets it from that
// process, asked through its control socket.
//
// The error wraps ErrInvalidSpec for an invalid type or status, ErrClosed once the pod was
// removed or this Runtime closed, and ErrNotFound for a pod without a live manager: its
// conditions are its manager's, and an unmanaged pod is never Ready (adopt it first).
func (p *Pod) SetCondition(ctx context.Context, t ConditionType, status ConditionStatus, reason, message string) error {
	if w := p.local(); w != nil {
		return w.SetCondition(t, status, reason, message)
	}
	if err := p.open(); err != nil {
		return err
	}
	return p.rt.setConditionRemote(ctx, p.name, t, status, reason, message)
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
//
// A pod another process manages gets it from that process, asked through its control socket:
// only the fields that can travel are sent (name, image, pull policy, command, args, env,
// working directory, target, stdin, tty), a spec with others set is refused with a
// *ValidationError, and on success the returned *Container is nil (the container is that
// process's: follow it with Status, Logs, Attach and Exec). A pod without a live manager cannot
// get one: an error wrapping ErrNotFound.
func (p *Pod) AddEphemeralContainer(ctx context.Context, spec EphemeralContainerSpec) (*Container, error) {
	if w := p.local(); w != nil {
		return w.AddEphemeralContainer(ctx, spec)
	}
	if err := p.open(); err != nil {
		return nil, err
	}
	return nil, p.rt.addEphemeralRemote(ctx, p.name, spec)
}

// Exec runs argv in a running container of the pod (kubectl exec), with the container's
// environment, user and working directory, and stdio connected to streams. It returns the
// process's exit code; if ctx ends first the process is killed and the code is -1. It works
// whichever process manages the pod, or none: the process runs in the container's task. The
// error wraps ErrNotFound if the pod or a running container of that name is not found,
// ErrUnavailable if containerd does not answer, and is a *NameError (ErrInvalidSpec) for an
// invalid container name.
func (p *Pod) Exec(ctx context.Context, container string, argv []string, streams ExecIO) (int, error) {
	if len(argv) == 0 {
		return -1, errors.New("exec: no command")
	}
	if err := checkName("container", container); err != nil {
		return -1, err
	}
	// The shim opens both output FIFOs as soon as any stream is connected: an empty path fails
	// the exec ("opening file \"\" failed").
	if streams.Stdout == nil {
		streams.Stdout = io.Discard
	}
	if streams.Stderr == nil {
		streams.Stderr = io.Discard
	}
	if w := p.local(); w != nil {
		c, err := w.Container(container)
		if err != nil {
			return -1, err
		}
		return c.exec(ctx, argv, streams)
	}
	if err := p.open(); err != nil {
		return -1, err
	}
	return p.rt.execRemote(ctx, p.name, container, argv, streams)
}

// Attach connects streams to the main process of a running interactive ephemeral container
// (one added with Stdin or TTY) of the pod, whichever process manages it, or none (kubectl
// attach): Stdin is written to its stdin (its end closes the container's stdin), its output is
// copied to Stdout (and Stderr, without a terminal), and with TTY the sizes sent on Resize are
// applied to its terminal. It returns the process's exit code once it exited and its output was
// copied, or -1 and ctx's error if ctx ended first (the process goes on). A container without
// Stdin or TTY gives an error wrapping ErrNotAttachable; one not running, ErrNotFound.
func (p *Pod) Attach(ctx context.Context, container string, streams ExecIO) (int, error) {
	if err := p.open(); err != nil {
		return -1, err
	}
	return p.rt.attach(ctx, p.name, container, streams)
}

// Logs writes the output of a container of the pod to w, whichever process manages it, or
// none: the text of each line, without the log format's timestamp and stream, one line (with
// its newline) per Write. It reads the current attempt's log, or the previous attempt's
// (opts.Previous), and follows it with opts.Follow. A container the pod does not have is an
// error wrapping ErrNotFound (a follower waits for it instead). A Follow that ctx ends returns
// ctx's error, after writing what was written until then.
func (p *Pod) Logs(ctx context.Context, container string, opts LogOptions, w io.Writer) error {
	return p.rt.logs(ctx, p.name, container, opts, w)
}
