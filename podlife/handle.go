package podlife

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrNotLocal is wrapped by the error of a Pod method that needs the pod's worker (Container,
// Wait, WaitFor, WaitStarted, WaitReady) when this Runtime does not manage the pod: another
// process does, or none (see PodRecord.Managed). Adopt takes a pod with no manager over.
var ErrNotLocal = errors.New("podlife: the pod is not managed by this Runtime")

// Pod is a handle on a pod of the Runtime's state directory, whichever process manages it:
// this Runtime, another live process using the same state directory (a CLI's background
// supervisor, an agent), or none, if its manager died or closed its Runtime (see PodRecord).
//
// Stop, Remove, Exec, Attach, Logs, SetCondition, SetActiveDeadline, AddEphemeralContainer, Usage
// and DiskUsage work the same wherever the manager is: a pod of this Runtime is acted on by its worker; a pod another
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

// handle returns the public handle on w, one of r's workers.
func (r *Runtime) handle(w *podWorker) *Pod {
	if w == nil {
		return nil
	}
	return &Pod{rt: r, name: w.Name(), w: w}
}

// local returns the worker of the pod if this Runtime manages it (or managed it when the handle
// was made), nil if another process or none manages it.
func (p *Pod) local() *podWorker {
	if p.w != nil {
		return p.w
	}
	if w, err := p.rt.table.Get(p.name); err == nil {
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
// directory and asks containerd (for at most 10 s); a pod that is gone gives a status with only
// its Name.
func (p *Pod) Status() PodStatus {
	if w := p.local(); w != nil {
		return w.Status()
	}
	ctx, cancel := context.WithTimeout(context.Background(), remoteStatusTimeout)
	defer cancel()
	rec, err := p.rt.LookupPod(ctx, p.name)
	if err != nil {
		return PodStatus{Name: p.name}
	}
	return rec.Status
}

// remoteStatusTimeout bounds what Status of a pod this Runtime does not manage asks containerd.
const remoteStatusTimeout = 10 * time.Second

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
