package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"errors"

	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/internal/restart"
)

// shouldRestart applies the kubelet's rules to an exited container: a sidecar always restarts;
// a regular init container restarts on failure, an app container on any exit, as its own
// restart policy and rules or else the pod's policy say (api.RestartsAfter).
func (c *Container) shouldRestart(code int) (restart bool) {
	c.pod.onLoopOrAfter(func() { restart = c.shouldRestartOwned(code) })
	return restart
}

// shouldRestartOwned is shouldRestart, on the loop.
func (c *Container) shouldRestartOwned(code int) bool {
	switch {
	case c.ephemeral:
		return false // never restarted (Kubernetes' ephemeral containers)
	case c.sidecar:
		return true
	case c.init && code == 0:
		return false
	case c.resizeRestart:
		return true // stopped to be resized (resize.go)
	}
	return RestartsAfter(c.spec, c.pod.spec.RestartPolicy, code)
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
	p.goroutines.Await(nil, gRestart, gRestartAll, gEphemeral)
}

// restart waits out the back-off, creates the next instance (before deleting the one that
// exited, so the pod's shim stays up), and starts it.
func (c *Container) restart(ctx context.Context, prev *instance, term *StateTerminated) {
	p := c.pod
	key := c.backoffKey()
	for {
		// Next returns how long the container is still in back-off, and 0 (advancing the
		// back-off) once it may restart.
		for {
			delay := p.host.Backoff.Next(key, term.FinishedAt)
			if delay <= 0 {
				c.persistBackoff() // advanced
				break
			}
			msg := restart.Message(p.host.Backoff.Delay(key), c.spec.Name, p.name)
			p.update(func() {
				c.lastState = ContainerState{Terminated: term}
				c.state = ContainerState{Waiting: &StateWaiting{Reason: ReasonCrashLoopBackOff, Message: msg}}
			})
			p.emit(c.spec.Name, EventWarning, ReasonBackOff, restart.EventMessage(c.spec.Name, p.name))
			timer := p.host.Clock.NewTimer(delay)
			select {
			case <-timer.C():
			case <-ctx.Done():
				timer.Stop()
				return
			}
		}
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
		inst.shared = true
		if !p.update(func() {
			c.cur = inst
			c.live = append(c.live, inst)
			c.restartCount = attempt
			c.lastState = ContainerState{Terminated: term}
			c.state = ContainerState{Waiting: &StateWaiting{Reason: ReasonContainerCreating}}
		}) {
			return // the loop ended: the runtime was closed; the instance stays for another Runtime
		}
		p.emit(c.spec.Name, EventNormal, ReasonCreated, "Created container: "+c.spec.Name)
		if prev != nil {
			c.dropInstance(prev)
		}
		failpoint.Hit("restart.old-deleted") // before the new instance starts
		if err := c.startInstance(ctx, inst); err != nil && ctx.Err() == nil {
			p.log.Info("restart failed", "container", c.spec.Name, "err", err)
		}
		return
	}
}

// backoffKey is the container's entry in the Runtime's crash-loop back-off: per pod UID, so
// that a new pod of the same name starts afresh. Pod.Remove drops it.
func (c *Container) backoffKey() string { return c.pod.uid + "/" + c.spec.Name }

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
	return ok && (c.shouldRestartOwned(code) || p.restartAll.active)
}
