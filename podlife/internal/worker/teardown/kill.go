package teardown

import (
	"context"
	"syscall"
	"time"

	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/attempt"
)

// Target is what Kill needs of an instance (one attempt of a container) and its container,
// from the worker: State reads the instance's state on the pod's loop, the functions run the
// worker's own sequences (its events, its hooks, its termination order).
type Target struct {
	// State returns the instance's task (nil if none), whether its process was started and
	// whether its exit is recorded already.
	State func() (task tasks.Task, running, exitRecorded bool)
	// Exited is closed once the process exited, its Exited event published (or once it will
	// never run).
	Exited <-chan struct{}
	// NeverRan closes Exited of an instance created but never started.
	NeverRan func()
	// Emit publishes an event of the container.
	Emit func(typ api.EventType, reason api.Reason, msg string)
	// PreStop runs the container's preStop hook; ctx ends with the grace period.
	PreStop func(ctx context.Context) error
	// AwaitOutlived holds back the stop signal, until deadline at most, while the pod's stop
	// waits for the containers this one outlives (a sidecar's); it returns at once otherwise.
	AwaitOutlived func(deadline time.Time)
}

// Kill says how to stop an instance.
type Kill struct {
	// Name is the container's name.
	Name string
	// Grace is the grace period; Reason the Killing event's message ("" for the default).
	Grace  time.Duration
	Reason string
	// PreStop runs the preStop hook (the container has one and the stop wants hooks).
	PreStop bool
	// Signal is the container's stop signal.
	Signal syscall.Signal
}

// KillInstance stops an instance's process the kubelet's way: Killing event, preStop within
// the grace period (if k.PreStop), the stop signal, SIGKILL once the remaining grace (at least
// attempt.MinGracePeriod) is over (attempt.Kill). An exit already recorded gets no preStop; a
// created task never started is only marked (its deletion kills its waiting process). ctx is
// the pod's life's.
func KillInstance(ctx context.Context, conn attempt.Conn, t Target, k Kill) {
	task, running, exited := t.State()
	if task == nil {
		return // nothing to stop
	}
	if exited {
		// An exit already recorded (and so maybe already seen by whoever asks for this stop)
		// must not get a preStop hook. Its Exited event follows the record: wait for it, so
		// that a stop that returned has it (Exited is closed right after the event).
		<-t.Exited
		return
	}
	select {
	case <-t.Exited:
		return
	default:
	}
	if !running {
		// Created but never started: nothing to stop gracefully. The task's deletion kills its
		// waiting init process and waits for it (a delete right after a separate kill can find
		// the process still in its cgroup and leave the cgroup behind).
		t.NeverRan()
		return
	}
	msg := "Stopping container " + k.Name
	if k.Reason != "" {
		msg = k.Reason
	}
	t.Emit(api.EventNormal, api.ReasonKilling, msg)
	deadline := time.Now().Add(k.Grace)
	if k.PreStop && k.Grace > 0 {
		failpoint.Hit("stop.prestop") // with a delay: in the middle of the hook
		hctx, cancel := context.WithDeadline(ctx, deadline)
		err := t.PreStop(hctx)
		cancel()
		if err != nil {
			t.Emit(api.EventWarning, api.ReasonFailedPreStopHook, "PreStopHook failed")
			conn.Log.Info("preStop hook failed", "container", k.Name, "err", err)
		}
	}
	// The termination order is the pod's stop's (the kubelet's killPodWithSyncResult): a
	// sidecar killed alone (a failed probe) gets its stop signal right after its preStop.
	t.AwaitOutlived(deadline)
	remaining := max(time.Until(deadline), attempt.MinGracePeriod)
	attempt.Kill(ctx, conn, attempt.Signalled{Name: k.Name, Task: task, Exited: t.Exited}, k.Signal, remaining)
}
