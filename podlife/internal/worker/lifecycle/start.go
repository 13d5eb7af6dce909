package lifecycle

import (
	"context"
	"fmt"

	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/podlife/internal/api"
)

// Instance is the start of one instance's process as the worker gives it to Start.
type Instance struct {
	Pod, Container string
	ID             string // the instance's containerd ID
	// Grant asks the pod's loop for the start: stopping if the pod is stopping (or the loop
	// ended), else start, the task's start, nil if the task was deleted. A start granted is
	// counted by the loop until Failed or Running ends it.
	Grant func() (start func(ctx context.Context) error, stopping bool)
	// Failed ends a start whose process did not run, with err: the start's count, the
	// event, the waiting state (RunContainerError), the instance marked as never run.
	Failed func(err error)
	// Running records the instance as running (which ends the start's count), emits its
	// Started event and starts its exit watcher.
	Running func()
	// PostStart runs the postStart hook (nil: none), which Supervise records in flight
	// (given ID) or over (given "") for an adopter; PostStartFailed handles its failure and
	// returns the start's error.
	PostStart       func(ctx context.Context) error
	Supervise       func(postStart string)
	PostStartFailed func(err error) error
	// Probes starts the instance's probes.
	Probes func()
	// Emit emits an event about the container.
	Emit func(typ api.EventType, reason api.Reason, msg string)
}

// Start starts an instance's process, runs its postStart hook and then starts its probes; it
// returns when the hook has finished. No process starts once the pod is stopping (a start
// policy may ignore its context), and the stop waits for a start in flight to be recorded:
// the loop grants the start (Grant).
func Start(ctx context.Context, i Instance) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	start, stopping := i.Grant()
	if stopping {
		return context.Canceled
	}
	if start == nil {
		return &api.StartError{Pod: i.Pod, Container: i.Container, Step: api.StepStart, Err: fmt.Errorf("task deleted: %w", api.ErrNotFound)}
	}
	if err := start(context.WithoutCancel(ctx)); err != nil {
		i.Failed(err)
		return &api.StartError{Pod: i.Pod, Container: i.Container, Step: api.StepStart, Err: err}
	}
	i.Running()
	failpoint.Hit("start.started") // between Task.Start and postStart
	if i.PostStart != nil {
		// Recorded while it runs: a manager that dies meanwhile leaves it for its adopter to
		// report as failed, rather than silently lost.
		i.Supervise(i.ID)
		failpoint.Hit("start.poststart") // with a delay: in the middle of the hook
		err := i.PostStart(ctx)
		i.Supervise("")
		if err != nil {
			return i.PostStartFailed(err)
		}
		i.Emit(api.EventNormal, api.ReasonPostStartCompleted, "PostStartHook completed")
		failpoint.Hit("start.poststart-done")
	}
	i.Probes()
	return nil
}
