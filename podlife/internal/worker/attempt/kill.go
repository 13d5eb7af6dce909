package attempt

import (
	"context"
	"syscall"
	"time"

	"github.com/containerd/errdefs"

	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// killWaitTimeout bounds the wait for a container's exit after SIGKILL.
const killWaitTimeout = 10 * time.Second

// MinGracePeriod is the kubelet's minimum time between the stop signal and SIGKILL.
const MinGracePeriod = 2 * time.Second

// Signalled is the attempt that Kill stops.
type Signalled struct {
	Name string // its container's name, for the log
	Task tasks.Task
	// Exited is closed once its exit is recorded (or it will never run).
	Exited <-chan struct{}
}

// Kill sends sig (the container's stop signal) to the attempt's process and, if it has not
// exited when remaining is over, SIGKILL to every process of the container; then it waits a
// bounded time for the exit. The Runtime's close (conn.Closing) ends the waits: nobody follows
// the exit any more, the process is left as it is. ctx is the pod's life's.
func Kill(ctx context.Context, conn Conn, a Signalled, sig syscall.Signal, remaining time.Duration) {
	task := a.Task
	if err := conn.Retry(ctx, func() error { return task.Kill(ctx, sig, false) }); err != nil && !errdefs.IsNotFound(err) {
		conn.Log.Debug("stop signal", "container", a.Name, "err", err)
	}
	failpoint.Hit("stop.signalled")
	timer := time.NewTimer(remaining)
	defer timer.Stop()
	select {
	case <-a.Exited:
		return
	case <-conn.Closing: // detached: nobody follows the exit any more; the pod is left as it is
		return
	case <-timer.C:
	}
	if err := conn.Retry(ctx, func() error { return task.Kill(ctx, syscall.SIGKILL, true) }); err != nil && !errdefs.IsNotFound(err) {
		conn.Log.Debug("SIGKILL", "container", a.Name, "err", err)
	}
	// Bounded: if containerd cannot tell the exit (it is away, or the runtime was closed and
	// its exit watcher returned), the task's deletion kills what is left.
	timer.Reset(killWaitTimeout)
	select {
	case <-a.Exited:
	case <-timer.C:
		conn.Log.Warn("no exit seen after SIGKILL", "container", a.Name, "waited", killWaitTimeout)
	case <-conn.Closing:
	}
}
