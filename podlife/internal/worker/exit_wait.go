package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"time"

	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/attempt"
	"github.com/podlife/podlife/podlife/internal/worker/exitwatch"
)

// watchExit records an instance's exit and decides what follows (see exitwatch.Watch).
func (c *Container) watchExit(inst *instance) {
	exitwatch.Watch(c.spec.Name, inst.id, exited{c, inst}, c.pod.log)
}

// exited is inst of c as its exit watcher (exitwatch.Watch) sees it.
type exited struct {
	c    *Container
	inst *instance
}

// Await follows the process across losses of the connection to containerd (see
// attempt.AwaitExit); it fails with ErrClosed if the runtime was closed.
func (x exited) Await() (uint32, time.Time, error) {
	p, inst := x.c.pod, x.inst
	var task tasks.Task
	var ch <-chan ctrd.ExitStatus
	if !p.do(func() { task, ch = inst.task, inst.exitCh }) {
		return 0, time.Time{}, ErrClosed // the loop has ended: the runtime was closed
	}
	return attempt.AwaitExit(p.watchCtx, p.conn(), attempt.Waited{ // Close ends the wait
		ID: inst.id, Name: x.c.spec.Name, Task: task, Exit: ch, ShimSocket: func() string { return p.instanceShimSocket(inst) }})
}

func (x exited) OOMKilled() bool { return x.inst.cg.OOMKilled() }

// Message reads the termination message (see attempt.TerminationMessage).
func (x exited) Message(code int) string {
	c, inst := x.c, x.inst
	var task tasks.Task
	c.pod.do(func() { task = inst.task })
	return attempt.TerminationMessage(attempt.Exited{TermPath: inst.termPath, LogPath: inst.logPath, Task: task, Log: inst.logs(),
		Fallback:   c.spec.TerminationMessagePolicy == TerminationMessageFallbackToLogsOnError,
		Containers: len(c.pod.spec.Containers) + len(c.pod.spec.InitContainers)}, code)
}

func (x exited) Record(e exitwatch.Exit) (term *StateTerminated) {
	c, inst, p := x.c, x.inst, x.c.pod
	p.update(func() {
		term = e.Terminated(inst.startedAt)
		inst.exitRecorded = true
		if inst.cancel != nil {
			inst.cancel() // its probes
		}
		if c.cur == inst {
			c.ready, c.started = false, false
			if c.hookFailed != "" && !p.stopping && c.shouldRestartOwned(term.ExitCode) {
				// The kubelet's state while the restart after a failed postStart is pending; a
				// container that will not restart shows how it ended.
				c.lastState = ContainerState{Terminated: term}
				c.state = ContainerState{Waiting: &StateWaiting{Reason: ReasonPostStartHookError, Message: c.hookFailed}}
			} else {
				c.state = ContainerState{Terminated: term}
			}
		}
	})
	return term
}

func (x exited) Emit(t time.Time, typ EventType, reason Reason, msg string) {
	x.c.pod.emitAt(t, x.c.spec.Name, typ, reason, msg)
}
func (x exited) Done()                        { close(x.inst.exited) }
func (x exited) OnExit(term *StateTerminated) { x.c.onExit(x.inst, term) }

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

// terminationDir is the directory, in the pod's, of the termination message files.
const terminationDir = attempt.TerminationDir

// Back-off between attempts to reach containerd (or a shim) again.
const (
	ReconnectInitial = attempt.ReconnectInitial
	ReconnectMax     = attempt.ReconnectMax
)
