package podlife

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/podlife/podlife/podlife/conditions"
	"github.com/podlife/podlife/podlife/internal/remote"
)

// What a Pod handle does to its pod, the same wherever the pod's manager is: each method acts
// through the pod's worker when this Runtime manages it (local), and otherwise through the
// manager's control socket or the unmanaged path (see Pod).

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
		return w.Stop(ctx, resolveStop(opts).worker())
	}
	if err := p.open(); err != nil {
		return err
	}
	return p.rt.adopter.Foreign(ctx, p.name, "stop", resolveStop(opts).grace)
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
			if err := w.Stop(ctx, resolveStop(opts).worker()); err != nil {
				return err
			}
		}
		return w.Remove(ctx)
	}
	if err := p.open(); err != nil {
		return err
	}
	return p.rt.adopter.Foreign(ctx, p.name, "remove", resolveStop(opts).grace)
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
// only once the condition is True. status is conditions.True, conditions.False or
// conditions.Unknown. The condition's last transition time changes when its status does. The
// conditions podlife computes itself ("Ready", "ContainersReady", "Initialized",
// "PodScheduled", "PodReadyToStartContainers": package podlife/conditions) cannot be set. A
// pod another process manages gets it from that process, asked through its control socket.
//
// The error wraps ErrInvalidSpec for an invalid type or status, ErrClosed once the pod was
// removed or this Runtime closed, and ErrNotFound for a pod without a live manager: its
// conditions are its manager's, and an unmanaged pod is never Ready (adopt it first).
func (p *Pod) SetCondition(ctx context.Context, t conditions.Type, status conditions.Status, reason, message string) error {
	if w := p.local(); w != nil {
		return w.SetCondition(t, status, reason, message)
	}
	if err := p.open(); err != nil {
		return err
	}
	return remote.SetCondition(ctx, p.rt.cfg.StateDir, p.name, t, status, reason, message)
}

// SetActiveDeadline sets the pod's active deadline (activeDeadlineSeconds) while it runs: the
// one update of a running pod's spec the API server allows, and as it allows it, set where the
// spec had none, or shortened. The deadline counts from the pod's start, as the spec's does: a
// deadline already past fails the pod at once, Failed with reason DeadlineExceeded (see
// PodSpec.ActiveDeadline). It is recorded with the pod: an adopter keeps it, and accepts the
// spec as started as well as the spec with the new deadline. A pod another process manages
// gets it from that process, asked through its control socket.
//
// The error is a *ValidationError (ErrInvalidSpec) naming spec.activeDeadlineSeconds for a
// deadline that is not positive or longer than the one in effect; it wraps ErrClosed once the
// pod was removed or this Runtime closed, and ErrNotFound for a pod without a live manager
// (adopt it first).
func (p *Pod) SetActiveDeadline(ctx context.Context, d time.Duration) error {
	if w := p.local(); w != nil {
		return w.SetActiveDeadline(d)
	}
	if err := p.open(); err != nil {
		return err
	}
	return remote.SetDeadline(ctx, p.rt.cfg.StateDir, p.name, d)
}

// AddEphemeralContainer adds an ephemeral container to the running pod and starts it
// (`kubectl debug`). It returns once its process has started, or with the error that kept it
// from starting: a *ValidationError for a spec the API server would refuse, or a
// *podsecurity.Error for one the Config's Pod Security level refuses (the pod is then
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
	return nil, remote.AddEphemeral(ctx, p.rt.cfg.StateDir, p.name, spec)
}

// Exec runs argv in a running container of the pod (kubectl exec), with the container's
// environment, user and working directory, and stdio connected to streams. It returns the
// process's exit code; if ctx ends first the process is killed and the code is -1. It works
// whichever process manages the pod, or none: the process runs in the container's task. The
// error wraps ErrNotFound if the pod or a running container of that name is not found,
// ErrUnavailable if containerd does not answer, and wraps ErrInvalidSpec for an
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
		code, err := w.Exec(ctx, c, argv, streams)
		if err != nil && ctx.Err() == nil && !errors.Is(err, ErrNotFound) && c.Status().State.Running == nil {
			// Its process exited (its task stays until the pod's stop): not a running container.
			err = fmt.Errorf("pod %q: no running container %q: %w (%w)", p.name, container, ErrNotFound, err)
		}
		return code, err
	}
	if err := p.open(); err != nil {
		return -1, err
	}
	return p.rt.remote().Exec(ctx, p.name, container, argv, streams)
}

// Attach connects streams to the main process of a running interactive ephemeral container
// (one added with Stdin or TTY) of the pod, whichever process manages it, or none (kubectl
// attach): Stdin is written to its stdin (its end closes the container's stdin), its output is
// copied to Stdout (and Stderr, without a terminal), and with TTY the sizes sent on Resize are
// applied to its terminal. It returns the process's exit code once it exited and its output was
// copied, or -1 and ctx's error if ctx ended first (the process goes on). A container without
// Stdin or TTY gives an error saying so; one not running, an error wrapping ErrNotFound.
func (p *Pod) Attach(ctx context.Context, container string, streams ExecIO) (int, error) {
	if err := p.open(); err != nil {
		return -1, err
	}
	return p.rt.remote().Attach(ctx, p.name, container, streams)
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
