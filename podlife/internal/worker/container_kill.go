package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"errors"
	"strconv"
	"time"

	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/attempt"
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

// killInstance stops an instance's process the kubelet's way: Killing event, preStop within the
// grace period (if withHooks), the stop signal, SIGKILL once the remaining grace (at least 2 s)
// is over. At the pod's stop, a sidecar's stop signal waits, after its preStop, until the
// containers it outlives have exited (within the grace period).
func (c *Container) killInstance(inst *instance, grace time.Duration, reason string, withHooks bool) {
	p := c.pod
	var task tasks.Task
	var running, exited bool
	p.do(func() { task, running, exited = inst.task, inst.running, inst.exitRecorded })
	if task == nil {
		return // nothing to stop
	}
	if exited {
		// An exit already recorded (and so maybe already seen by whoever asks for this stop)
		// must not get a preStop hook. Its Exited event follows the record: wait for it, so
		// that a stop that returned has it (inst.exited is closed right after the event).
		<-inst.exited
		return
	}
	select {
	case <-inst.exited:
		return
	default:
	}
	ctx := p.lifeCtx
	if !running {
		// Created but never started: nothing to stop gracefully. The task's deletion kills its
		// waiting init process and waits for it (a delete right after a separate kill can find
		// the process still in its cgroup and leave the cgroup behind).
		inst.markNeverRan()
		return
	}
	msg := "Stopping container " + c.spec.Name
	if reason != "" {
		msg = reason
	}
	p.emit(c.spec.Name, EventNormal, api.ReasonKilling, msg)
	deadline := time.Now().Add(grace)
	if h := c.spec.PreStop; h != nil && withHooks && grace > 0 {
		failpoint.Hit("stop.prestop") // with a delay: in the middle of the hook
		hctx, cancel := context.WithDeadline(ctx, deadline)
		err := c.runHook(hctx, h, "PreStop")
		cancel()
		if err != nil {
			p.emit(c.spec.Name, EventWarning, api.ReasonFailedPreStopHook, "PreStopHook failed")
			p.log.Info("preStop hook failed", "container", c.spec.Name, "err", err)
		}
	}
	if c.sidecar && p.isStopping() {
		// The termination order is the pod's stop's (the kubelet's killPodWithSyncResult): a
		// sidecar killed alone (a failed probe) gets its stop signal right after its preStop.
		p.waitOutlived(c, deadline)
	}
	remaining := max(time.Until(deadline), MinGracePeriod)
	attempt.Kill(ctx, p.conn(), attempt.Signalled{Name: c.spec.Name, Task: task, Exited: inst.exited}, c.stopSignal, remaining)
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
