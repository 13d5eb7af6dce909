package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"errors"

	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/internal/restart"
	"github.com/podlife/podlife/podlife/internal/worker/restarting"
)

// shouldRestart applies the kubelet's rules to an exited container (restarting.ShouldRestart).
func (c *Container) shouldRestart(code int) (restart bool) {
	c.pod.onLoopOrAfter(func() { restart = c.shouldRestartOwned(code) })
	return restart
}

// shouldRestartOwned is shouldRestart, on the loop.
func (c *Container) shouldRestartOwned(code int) bool {
	k := restarting.Kind{Ephemeral: c.ephemeral, Sidecar: c.sidecar, Init: c.init, Resizing: c.resizeRestart}
	return restarting.ShouldRestart(k, c.spec, c.pod.spec.RestartPolicy, code)
}

// onExit decides what follows an instance's exit: a restart under crash-loop back-off, or,
// when nothing will restart, possibly the end of the pod.
func (c *Container) onExit(inst *instance, term *StateTerminated) {
	p := c.pod
	if c.exitRestartsAll(inst, term) {
		return // restart_all.go
	}
	if !c.shouldRestart(term.ExitCode) {
		if !p.isStopping() {
			p.onContainerExit()
		}
		return
	}
	p.spawnRestart(gRestart, func() { c.restart(p.startCtx, inst, term) })
}

// spawnRestart starts fn, a restart, in the pod's group unless the pod is stopping: spawned on
// the loop, which orders it with the stop's wait for the restarts (awaitRestarts: the stop sets
// p.stopping on the loop before it waits). It reports whether fn was started.
func (p *Worker) spawnRestart(what string, fn func()) bool {
	started := false
	p.do(func() {
		if !p.stopping {
			p.spawn(what, fn)
			started = true
		}
	})
	return started
}

// awaitRestarts waits, once the pod is stopping, for the restarts in flight (those of
// spawnRestart and of restart_all.go) and the ephemeral containers' creations and starts.
func (p *Worker) awaitRestarts() {
	p.goroutines.await(nil, gRestart, gRestartAll, gEphemeral)
}

// restart waits out the back-off, creates the next instance (before deleting the one that
// exited, so the pod's shim stays up), and starts it.
func (c *Container) restart(ctx context.Context, prev *instance, term *StateTerminated) {
	p := c.pod
	for {
		if !restarting.AwaitBackoff(ctx, p.host.Backoff, p.host.Clock, c.backoffKey(), c.spec.Name, p.name, term.FinishedAt, func(msg string) {
			p.update(func() {
				c.lastState = ContainerState{Terminated: term}
				c.state = ContainerState{Waiting: &StateWaiting{Reason: ReasonCrashLoopBackOff, Message: msg}}
			})
			p.emit(c.spec.Name, EventWarning, ReasonBackOff, restart.EventMessage(c.spec.Name, p.name))
		}) {
			return
		}
		c.persistBackoff() // advanced
		attempt := 0
		if !p.do(func() { attempt = c.restartCount + 1 }) {
			return // the loop ended: the runtime was closed
		}
		failpoint.Hit("restart.backoff-over")
		inst, err := c.newInstance(leasedCtx(ctx, p), attempt, NewID())
		for err != nil && (errors.Is(err, errCreateCut) || p.host.LostConn(ctx, err)) {
			// containerd is away: no create error, the restart waits for it.
			if p.host.WaitConnected(ctx) != nil {
				return
			}
			inst, err = c.newInstance(leasedCtx(ctx, p), attempt, NewID())
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			p.emit(c.spec.Name, EventWarning, ReasonFailed, "Error: "+err.Error())
			c.setWaiting(ReasonCreateContainerError, err.Error())
			term = &StateTerminated{ExitCode: term.ExitCode, Reason: term.Reason, Message: term.Message, StartedAt: term.StartedAt, FinishedAt: p.host.Clock.Now()}
			continue
		}
		// ErrClosed itself: the loop ended (the runtime was closed); the instance stays for
		// another Runtime.
		err = c.replace(ctx, prev, inst, attempt, ContainerState{Terminated: term}, "restart.old-deleted")
		if err != nil && err != ErrClosed && ctx.Err() == nil {
			p.log.Info("restart failed", "container", c.spec.Name, "err", err)
		}
		return
	}
}

// rerun starts the container's next instance at once (no back-off), its last state the run
// that ended: a restart of all the pod's containers. A container never created yet starts as
// at the pod's start.
func (c *Container) rerun(ctx context.Context) error {
	p := c.pod
	var prev *instance
	var last ContainerState
	attempt := 0
	if !p.do(func() { prev, last, attempt = c.cur, c.state, c.restartCount+1 }) {
		return ErrClosed
	}
	if prev == nil {
		return c.start(ctx)
	}
	p.host.Backoff.Reset(c.backoffKey())
	inst, err := c.newInstance(leasedCtx(ctx, p), attempt, NewID())
	if err != nil {
		p.emit(c.spec.Name, EventWarning, ReasonFailed, "Error: "+err.Error())
		c.setWaiting(ReasonCreateContainerError, err.Error())
		return err
	}
	return c.replace(ctx, prev, inst, attempt, last, "")
}

// replace makes inst, attempt's instance just created, the container's current one (its last
// state last if that is a termination), deletes prev's containerd objects (if any), hits
// crashPoint (if any), and starts inst. It returns ErrClosed itself if the loop had ended.
func (c *Container) replace(ctx context.Context, prev, inst *instance, attempt int, last ContainerState, crashPoint string) error {
	p := c.pod
	inst.shared = true
	if !p.update(func() {
		c.cur = inst
		c.live = append(c.live, inst)
		c.restartCount = attempt
		if last.Terminated != nil {
			c.lastState = last
		}
		c.state = ContainerState{Waiting: &StateWaiting{Reason: ReasonContainerCreating}}
	}) {
		return ErrClosed
	}
	p.emit(c.spec.Name, EventNormal, ReasonCreated, "Created container: "+c.spec.Name)
	if prev != nil {
		c.dropInstance(prev)
	}
	if crashPoint != "" {
		failpoint.Hit(crashPoint) // before the new instance starts
	}
	return c.startInstance(ctx, inst)
}

// backoffKey is the container's entry in the Runtime's crash-loop back-off
// (restarting.BackoffKey). Pod.Remove drops it.
func (c *Container) backoffKey() string { return restarting.BackoffKey(c.pod.uid, c.spec.Name) }

// dropInstance deletes an exited instance's containerd objects.
func (c *Container) dropInstance(inst *instance) {
	p := c.pod
	if err := inst.delete(p.lifeCtx); err != nil {
		p.log.Warn("delete previous instance", "container", c.spec.Name, "err", err)
		return
	}
	p.do(func() {
		for i, l := range c.live {
			if l == inst {
				c.live = append(c.live[:i], c.live[i+1:]...)
				break
			}
		}
	})
}

// restartsByName is the pod's RestartsFunc for ComputePhase: the named container's shouldRestart.
// It runs on the loop.
func (p *Worker) restartsByName(name string, code int) bool {
	c, ok := p.byName[name]
	return ok && (c.shouldRestartOwned(code) || p.restartAll.Active())
}
