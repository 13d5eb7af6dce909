package restarting

import (
	"context"
	"log/slog"

	"github.com/podlife/podlife/internal/clock"
	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/internal/restart"
	"github.com/podlife/podlife/podlife/internal/api"
)

// Container is one container of the pod as its restarts need it, implemented by the worker:
// each method runs closures on the worker's loop or does its I/O, and returns values. I is the
// worker's instance handle, its zero value none.
type Container[I comparable] interface {
	// Name is the container's name.
	Name() string
	// Next returns the container's current instance, its state and the number of its next
	// attempt; ok is false once the pod's loop has ended.
	Next() (cur I, state api.ContainerState, attempt int, ok bool)
	// Waiting sets the container's waiting state, and its last state to last unless nil.
	Waiting(reason api.Reason, msg string, last *api.StateTerminated)
	// Emit records an event of the container.
	Emit(typ api.EventType, reason api.Reason, msg string)
	// PersistBackoff records the container's back-off entry for an adopter.
	PersistBackoff()
	// Create creates the instance of attempt (its containerd container and task), not started.
	Create(ctx context.Context, attempt int) (I, error)
	// Install makes inst, attempt's instance, the container's current one, waiting in
	// ContainerCreating, its last state last if that is a termination; false once the pod's
	// loop has ended.
	Install(inst I, attempt int, last api.ContainerState) bool
	// Drop deletes an instance's containerd objects.
	Drop(inst I)
	// Start starts inst's process; StartFirst starts a container never created yet, as at the
	// pod's start.
	Start(ctx context.Context, inst I) error
	StartFirst(ctx context.Context) error
}

// Host is what a container's restarts need of the Runtime and the pod.
type Host struct {
	Pod, PodUID string
	Backoff     *restart.Tracker
	Clock       clock.Clock
	Log         *slog.Logger
	// Away reports whether a create's error means containerd is away (the create is tried
	// again once it is back); WaitConnected waits until it is.
	Away          func(ctx context.Context, err error) bool
	WaitConnected func(ctx context.Context) error
}

// Restart restarts container c after its instance prev (zero: none left) exited (term): it
// waits out the crash-loop back-off, creates the next instance (before deleting prev, so the
// pod's shim stays up) and starts it. A create that fails shows CreateContainerError and goes
// through the back-off again; while containerd is away, the restart waits for it. It returns
// when ctx ends or the pod's loop has ended.
func Restart[I comparable](ctx context.Context, h Host, c Container[I], prev I, term *api.StateTerminated) {
	name := c.Name()
	for {
		if !AwaitBackoff(ctx, h.Backoff, h.Clock, BackoffKey(h.PodUID, name), name, h.Pod, term.FinishedAt, func(msg string) {
			c.Waiting(api.ReasonCrashLoopBackOff, msg, term)
			c.Emit(api.EventWarning, api.ReasonBackOff, restart.EventMessage(name, h.Pod))
		}) {
			return
		}
		c.PersistBackoff() // advanced
		_, _, attempt, ok := c.Next()
		if !ok {
			return // the loop ended: the runtime was closed
		}
		failpoint.Hit("restart.backoff-over")
		inst, err := c.Create(ctx, attempt)
		for err != nil && h.Away(ctx, err) {
			// containerd is away: no create error, the restart waits for it.
			if h.WaitConnected(ctx) != nil {
				return
			}
			inst, err = c.Create(ctx, attempt)
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			createFailed(c, err)
			term = &api.StateTerminated{ExitCode: term.ExitCode, Reason: term.Reason, Message: term.Message, StartedAt: term.StartedAt, FinishedAt: h.Clock.Now()}
			continue
		}
		if !c.Install(inst, attempt, api.ContainerState{Terminated: term}) {
			return // the loop ended: the runtime was closed; the instance stays for another Runtime
		}
		c.Emit(api.EventNormal, api.ReasonCreated, "Created container: "+name)
		var none I
		if prev != none {
			c.Drop(prev)
		}
		failpoint.Hit("restart.old-deleted") // before the new instance starts
		if err := c.Start(ctx, inst); err != nil && ctx.Err() == nil {
			h.Log.Info("restart failed", "container", name, "err", err)
		}
		return
	}
}

// Rerun starts container c's next instance at once (its back-off reset), its last state the
// run that ended: a restart of all the pod's containers. A container never created yet starts
// as at the pod's start. It fails with api.ErrClosed once the pod's loop has ended.
func Rerun[I comparable](ctx context.Context, h Host, c Container[I]) error {
	var none I
	prev, last, attempt, ok := c.Next()
	if !ok {
		return api.ErrClosed
	}
	if prev == none {
		return c.StartFirst(ctx)
	}
	h.Backoff.Reset(BackoffKey(h.PodUID, c.Name()))
	inst, err := c.Create(ctx, attempt)
	if err != nil {
		createFailed(c, err)
		return err
	}
	if !c.Install(inst, attempt, last) {
		return api.ErrClosed
	}
	c.Emit(api.EventNormal, api.ReasonCreated, "Created container: "+c.Name())
	c.Drop(prev)
	return c.Start(ctx, inst)
}

// createFailed shows a create's error as the kubelet does: a Failed event, the container
// waiting in CreateContainerError.
func createFailed[I comparable](c Container[I], err error) {
	c.Emit(api.EventWarning, api.ReasonFailed, "Error: "+err.Error())
	c.Waiting(api.ReasonCreateContainerError, err.Error(), nil)
}
