package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"errors"
	"slices"

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
func (p *Worker) spawnRestart(what string, fn func()) (started bool) {
	p.do(func() {
		if started = !p.stopping; started {
			p.spawn(what, fn)
		}
	})
	return started
}

// awaitRestarts waits, once the pod is stopping, for the restarts in flight (those of
// spawnRestart and of restart_all.go) and the ephemeral containers' creations and starts.
func (p *Worker) awaitRestarts() {
	p.goroutines.Await(nil, gRestart, gRestartAll, gEphemeral)
}

// restart restarts c after its instance prev (nil: none left) exited (restarting.Restart).
func (c *Container) restart(ctx context.Context, prev *instance, term *StateTerminated) {
	restarting.Restart(ctx, c.pod.restartHost(), restartCtr{c}, prev, term)
}

// rerun starts c's next instance at once: a restart of all the pod's containers
// (restarting.Rerun).
func (c *Container) rerun(ctx context.Context) error {
	return restarting.Rerun(ctx, c.pod.restartHost(), restartCtr{c})
}

// restartHost is what package restarting needs of the pod and its Host.
func (p *Worker) restartHost() restarting.Host {
	return restarting.Host{Pod: p.name, PodUID: p.uid, Backoff: p.host.Backoff, Clock: p.host.Clock, Log: p.log,
		Away: func(ctx context.Context, err error) bool {
			return errors.Is(err, errCreateCut) || p.host.LostConn(ctx, err)
		},
		WaitConnected: p.host.WaitConnected}
}

// restartCtr is a container as its restarts see it (restarting.Container).
type restartCtr struct{ c *Container }

func (r restartCtr) Name() string    { return r.c.spec.Name }
func (r restartCtr) PersistBackoff() { r.c.persistBackoff() }
func (r restartCtr) Start(ctx context.Context, inst *instance) error {
	return r.c.startInstance(ctx, inst)
}
func (r restartCtr) StartFirst(ctx context.Context) error { return r.c.start(ctx) }

func (r restartCtr) Emit(typ EventType, reason Reason, msg string) {
	r.c.pod.emit(r.c.spec.Name, typ, reason, msg)
}

func (r restartCtr) Create(ctx context.Context, attempt int) (*instance, error) {
	return r.c.newInstance(leasedCtx(ctx, r.c.pod), attempt, NewID())
}

func (r restartCtr) Next() (cur *instance, state ContainerState, attempt int, ok bool) {
	c := r.c
	ok = c.pod.do(func() { cur, state, attempt = c.cur, c.st.State, c.st.RestartCount+1 })
	return cur, state, attempt, ok
}

func (r restartCtr) Waiting(reason Reason, msg string, last *StateTerminated) {
	c := r.c
	c.pod.update(func() {
		if last != nil {
			c.st.LastState = ContainerState{Terminated: last}
		}
		c.st.State = ContainerState{Waiting: &StateWaiting{Reason: reason, Message: msg}}
	})
}

func (r restartCtr) Install(inst *instance, attempt int, last ContainerState) bool {
	c := r.c
	inst.shared = true
	return c.pod.update(func() {
		c.cur = inst
		c.live = append(c.live, inst)
		c.st.RestartCount = attempt
		if last.Terminated != nil {
			c.st.LastState = last
		}
		c.st.State = ContainerState{Waiting: &StateWaiting{Reason: ReasonContainerCreating}}
	})
}

// backoffKey is the container's entry in the Runtime's crash-loop back-off
// (restarting.BackoffKey). Pod.Remove drops it.
func (c *Container) backoffKey() string { return restarting.BackoffKey(c.pod.uid, c.spec.Name) }

// Drop deletes an exited instance's containerd objects.
func (r restartCtr) Drop(inst *instance) {
	c := r.c
	if err := inst.delete(c.pod.lifeCtx); err != nil {
		c.pod.log.Warn("delete previous instance", "container", c.spec.Name, "err", err)
		return
	}
	c.pod.do(func() { c.live = slices.DeleteFunc(c.live, func(l *instance) bool { return l == inst }) })
}

// restartsByName is the pod's RestartsFunc for ComputePhase: the named container's shouldRestart.
// It runs on the loop.
func (p *Worker) restartsByName(name string, code int) bool {
	c, ok := p.byName[name]
	return ok && (c.shouldRestartOwned(code) || p.restartAll.Active())
}
