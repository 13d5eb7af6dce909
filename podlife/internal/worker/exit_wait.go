package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"time"

	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/attempt"
)

// awaitExit returns the exit status and time of an instance's process, following it across
// losses of the connection to containerd (see attempt.AwaitExit). It fails with attempt.ErrTaskLost if
// the task is gone and the shim did not tell, and with ErrClosed if the runtime was closed.
func (c *Container) awaitExit(inst *instance) (uint32, time.Time, error) {
	p := c.pod
	var task tasks.Task
	var ch <-chan ctrd.ExitStatus
	if !p.do(func() { task, ch = inst.task, inst.exitCh }) {
		return 0, time.Time{}, ErrClosed // the loop has ended: the runtime was closed
	}
	return attempt.AwaitExit(p.watchCtx, p.conn(), attempt.Waited{ // Close ends the wait
		ID: inst.id, Name: c.spec.Name, Task: task, Exit: ch, ShimSocket: func() string { return p.instanceShimSocket(inst) }})
}

// instanceShimSocket is the socket of the shim that runs inst: the pod's shim group's, or with
// one shim per container, the one derived from the instance's own ID (the formula of
// containerd's shim manager, see podsandbox.Shim.SocketOf).
func (p *Worker) instanceShimSocket(inst *instance) string {
	group := p.shimGroup()
	if group == "" {
		group = inst.id
	}
	return p.shim.SocketOf(group)
}

// terminationMessage reads the message of an instance whose process exited with code (see
// attempt.TerminationMessage). It does I/O: it runs before the exit is handed to the pod's loop.
func (c *Container) terminationMessage(inst *instance, task tasks.Task, code int) string {
	return attempt.TerminationMessage(attempt.Exited{TermPath: inst.termPath, LogPath: inst.logPath, Task: task, Log: inst.logs(),
		Fallback:   c.spec.TerminationMessagePolicy == TerminationMessageFallbackToLogsOnError,
		Containers: len(c.pod.spec.Containers) + len(c.pod.spec.InitContainers)}, code)
}

// terminationDir is the directory, in the pod's, of the termination message files.
const terminationDir = attempt.TerminationDir

// Back-off between attempts to reach containerd (or a shim) again.
const (
	ReconnectInitial = attempt.ReconnectInitial
	ReconnectMax     = attempt.ReconnectMax
)
