package exitwatch

import (
	"errors"
	"log/slog"
	"strconv"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/worker/attempt"
)

// Exit is what the watcher learnt of an instance's exit, before it is recorded.
type Exit struct {
	Code uint32
	At   time.Time
	// Lost: the task was gone when containerd answered again: its exit status is unknown.
	Lost bool
	// OOM: the cgroup's OOM killer killed a process of the container.
	OOM bool
	// Message is the termination message.
	Message string
}

// Terminated is the container's terminated state after the exit of a process started at
// startedAt.
func (e Exit) Terminated(startedAt time.Time) *api.StateTerminated {
	term := api.TerminatedAt(int(e.Code), startedAt, e.At)
	term.Message = e.Message
	switch {
	case e.Lost:
		term.Reason, term.Message = api.ReasonContainerStatusUnknown, "The container's task was gone when containerd answered again: its exit status is unknown"
	case e.OOM:
		term.Reason = api.ReasonOOMKilled
	}
	return term
}

// Instance is the instance Watch watches, with what Watch needs of it from the worker.
type Instance struct {
	// Name is its container's name, ID its containerd ID; Log the pod's logger.
	Name, ID string
	Log      *slog.Logger
	// Await waits for the process's exit (see attempt.AwaitExit): attempt.ErrTaskLost if the
	// task is gone and the shim did not tell; any other error when the runtime detached.
	Await func() (code uint32, at time.Time, err error)
	// OOMKilled reads the container's cgroup (I/O, before the exit is recorded).
	OOMKilled func() bool
	// Message reads the termination message of an exit with code (I/O, before the record).
	Message func(code int) string
	// Record records the exit on the pod's loop and returns the container's terminated state;
	// nil if the loop has ended (the runtime was closed): nothing is recorded.
	Record func(e Exit) *api.StateTerminated
	// Emit publishes the container's event at t.
	Emit func(t time.Time, typ api.EventType, reason api.Reason, msg string)
	// Done says the process has exited (its exit recorded, or never to be).
	Done func()
	// OnExit decides what follows the recorded exit (a restart, the pod's end).
	OnExit func(term *api.StateTerminated)
}

// Watch records the exit of the instance's process and hands it on: the Exited event is
// published before Done, and OnExit runs after both. If the runtime detached (the process may
// well still run), nothing is recorded.
func Watch(w Instance) {
	code, at, err := w.Await()
	lost := errors.Is(err, attempt.ErrTaskLost)
	if err != nil && !lost {
		return
	}
	if lost {
		w.Log.Warn("a container's task was gone when containerd answered again", "container", w.Name, "id", w.ID)
	}
	e := Exit{Code: code, At: at, Lost: lost}
	// The OOM check reads the cgroup: I/O, done before the loop decides. So does the
	// termination message (its file, or the log's tail).
	e.OOM = code != 0 && !lost && w.OOMKilled()
	if !lost {
		e.Message = w.Message(int(code))
	}
	term := w.Record(e)
	if term == nil {
		w.Done()
		return
	}
	typ := api.EventNormal
	if code != 0 {
		typ = api.EventWarning
	}
	w.Emit(at, typ, api.ReasonExited, "Container "+w.Name+" exited with code "+strconv.Itoa(int(code)))
	w.Done()
	w.OnExit(term)
}
