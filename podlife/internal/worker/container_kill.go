package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"errors"
	"strconv"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/attempt"
	"github.com/podlife/podlife/podlife/internal/worker/teardown"
)

// watchExit records an instance's exit and decides what follows.
func (c *Container) watchExit(inst *instance) {
	p := c.pod
	code, at, err := c.awaitExit(inst)
	lost := errors.Is(err, attempt.ErrTaskLost)
	if err != nil && !lost {
		// The runtime detached: the process may well still run. Record nothing.
		return
	}
	if lost {
		p.log.Warn("a container's task was gone when containerd answered again", "container", c.spec.Name, "id", inst.id)
	}
	// The OOM check reads the cgroup: I/O, done before the loop decides.
	oom := code != 0 && !lost && inst.cg.OOMKilled()
	// So does the termination message (its file, or the log's tail).
	var msg string
	if !lost {
		var task tasks.Task
		p.do(func() { task = inst.task })
		msg = c.terminationMessage(inst, task, int(code))
	}
	var term *StateTerminated
	p.update(func() {
		term = TerminatedAt(int(code), inst.startedAt, at)
		term.Message = msg
		inst.exitRecorded = true
		switch {
		case lost:
			term.Reason, term.Message = api.ReasonContainerStatusUnknown, "The container's task was gone when containerd answered again: its exit status is unknown"
		case oom:
			term.Reason = api.ReasonOOMKilled
		}
		if inst.cancel != nil {
			inst.cancel() // its probes
		}
		if c.cur == inst {
			c.ready, c.started = false, false
			if c.hookFailed != "" && !p.stopping && c.shouldRestartOwned(term.ExitCode) {
				// The kubelet's state while the restart after a failed postStart is pending; a
				// container that will not restart shows how it ended.
				c.lastState = ContainerState{Terminated: term}
				c.state = ContainerState{Waiting: &StateWaiting{Reason: api.ReasonPostStartHookError, Message: c.hookFailed}}
			} else {
				c.state = ContainerState{Terminated: term}
			}
		}
	})
	if term == nil {
		// The loop has ended (the runtime was closed): nothing is recorded.
		close(inst.exited)
		return
	}
	typ := EventNormal
	if code != 0 {
		typ = EventWarning
	}
	p.emitAt(at, c.spec.Name, typ, api.ReasonExited, "Container "+c.spec.Name+" exited with code "+strconv.Itoa(int(code)))
	close(inst.exited)
	c.onExit(inst, term)
}

// kill stops the current instance (see killInstance).
func (c *Container) kill(grace time.Duration, reason string, withHooks bool) {
	inst, _ := c.current()
	if inst != nil {
		c.killInstance(inst, grace, reason, withHooks)
	}
}

// killInstance stops an instance's process the kubelet's way (see teardown.KillInstance). At
// the pod's stop, a sidecar's stop signal waits, after its preStop, until the containers it
// outlives have exited (within the grace period).
func (c *Container) killInstance(inst *instance, grace time.Duration, reason string, withHooks bool) {
	teardown.KillInstance(c.pod.lifeCtx, c.pod.conn(), killTarget{c, inst}, teardown.Kill{Name: c.spec.Name,
		Grace: grace, Reason: reason, PreStop: withHooks && c.spec.PreStop != nil, Signal: c.stopSignal})
}

// killTarget is inst of c as teardown.KillInstance sees it.
type killTarget struct {
	c    *Container
	inst *instance
}

func (k killTarget) State() (task tasks.Task, running, exited bool) {
	k.c.pod.do(func() { task, running, exited = k.inst.task, k.inst.running, k.inst.exitRecorded })
	return task, running, exited
}
func (k killTarget) Exited() <-chan struct{} { return k.inst.exited }
func (k killTarget) NeverRan()               { k.inst.markNeverRan() }
func (k killTarget) Emit(typ EventType, reason Reason, msg string) {
	k.c.pod.emit(k.c.spec.Name, typ, reason, msg)
}
func (k killTarget) PreStop(ctx context.Context) error {
	return k.c.runHook(ctx, k.c.spec.PreStop, "PreStop")
}
func (k killTarget) AwaitOutlived(deadline time.Time) {
	if k.c.sidecar && k.c.pod.isStopping() {
		k.c.pod.waitOutlived(k.c, deadline)
	}
}

// MinGracePeriod is the kubelet's minimum time between the stop signal and SIGKILL.
const MinGracePeriod = attempt.MinGracePeriod

// deleteInstances removes every instance's task (and, with containers, its container).
func (c *Container) deleteInstances(ctx context.Context, containers bool) error {
	var live []*instance
	c.pod.do(func() { live = append([]*instance(nil), c.live...) })
	var errs []error
	for _, i := range live {
		if containers {
			// An instance without a task may be a create a dead manager left cut short: delete
			// sweeps the cgroups runc made for it before containerd undid the create.
			errs = append(errs, i.delete(ctx))
			continue
		}
		errs = append(errs, i.deleteTask(ctx))
	}
	if containers {
		c.pod.do(func() { c.live = nil })
	}
	return errors.Join(errs...)
}
