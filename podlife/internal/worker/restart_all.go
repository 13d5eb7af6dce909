package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// RestartAllContainers (Kubernetes' RestartAllContainersOnContainerExits), as the kubelet does
// it: a container whose exit matches a restart rule with that action restarts the whole pod in
// place. The pod's AllContainersRestarting condition turns True; every container still running
// is stopped (its preStop hook, the pod's grace period; at once, whatever its restart policy:
// their exits are this restart's, not crashes); the condition turns False; then the init
// containers run again in order (a sidecar until it has started, a regular one until it
// completes) and the app containers start as at the pod's start (its start policy). Each
// container's restart count grows by one and its last state is the run that ended; the sandbox
// (network, volumes, IP) stays. A rule that matches while the start sequence is still in its
// init containers restarts those (the sequence then goes on to the app containers). An exit that
// matches while a restart of all is under way runs another one after it, never two at once.

// restartAllState is the pod's restart of all its containers in progress: the loop's state
// (Worker.restartAll), read and written in closures on the loop only.
type restartAllState struct {
	// active: a restart of all the containers runs (its goroutine, gRestartAll).
	active bool
	// killed are the instances this restart stops: their exits are not crashes.
	killed map[*instance]bool
	// again: another container's exit matched a RestartAllContainers rule meanwhile.
	again bool
}

// exitRestartsAll takes the exit of inst (term) first (onExit): it reports whether the exit is
// the business of a restart of all the pod's containers, which then handles it: the exit of a
// container this restart stopped, or one that starts such a restart.
func (c *Container) exitRestartsAll(inst *instance, term *StateTerminated) bool {
	p := c.pod
	rule := !c.ephemeral && c.spec.RestartsAll(term.ExitCode)
	handled := false
	p.do(func() {
		ra := &p.restartAll
		switch {
		case ra.killed[inst]:
			handled = true
		case !rule || p.stopping:
		case ra.active:
			ra.again = true
			handled = true
		default:
			// Spawned on the loop, which orders it with the stop's wait for the restarts
			// (the stop sets p.stopping on the loop before it waits).
			ra.active, handled = true, true
			p.spawn(gRestartAll, func() { p.restartAllContainers(p.startCtx, c) })
		}
	})
	return handled
}

// restartAllContainers restarts every container of the pod in place, started by trigger's exit
// (see the top of this file), and again while another exit asked for it meanwhile.
func (p *Worker) restartAllContainers(ctx context.Context, trigger *Container) {
	for {
		p.restartAllOnce(ctx, trigger)
		again := false
		p.do(func() {
			ra := &p.restartAll
			ra.killed = nil
			again = ra.again && ctx.Err() == nil && !p.stopping
			ra.again = false
			ra.active = again
		})
		if !again {
			return
		}
	}
}

// restartAllOnce is one restart of all the containers.
func (p *Worker) restartAllOnce(ctx context.Context, trigger *Container) {
	inSequence := false
	select {
	case <-p.seqDone:
	default:
		// The start sequence is under way: an init container's rule restarts the init
		// containers; an app container's waits for the sequence to end first.
		inSequence = trigger.init
		if !inSequence {
			select {
			case <-p.seqDone:
			case <-ctx.Done():
				return
			}
		}
	}
	p.emit(trigger.spec.Name, EventNormal, ReasonKilling, "Container "+trigger.spec.Name+" exited with a RestartAllContainers rule: restarting all the pod's containers")
	p.setRestartingCondition(true)
	// Stopped: the app containers and the sidecars that run, at once and in parallel.
	var stop []*Container
	if !inSequence {
		stop = append(stop, p.apps...)
	}
	stop = append(stop, p.inits...)
	var wg sync.WaitGroup
	grace := GracePeriod(&p.spec)
	for _, c := range stop {
		inst, _ := c.current()
		if inst == nil {
			continue
		}
		p.do(func() {
			if p.restartAll.killed == nil {
				p.restartAll.killed = map[*instance]bool{}
			}
			p.restartAll.killed[inst] = true
		})
		wg.Go(func() {
			c.killInstance(inst, grace, "Container "+c.spec.Name+" restarts with all the pod's containers", true)
		})
	}
	wg.Wait()
	p.setRestartingCondition(false)
	if ctx.Err() != nil || p.isStopping() {
		return
	}
	// The init containers run again in order; with the sequence under way, those up to the
	// trigger (the sequence waits for the trigger to complete, then starts the app containers).
	for _, c := range p.inits {
		if err := c.rerun(ctx); err != nil {
			p.log.Info("restart of all containers: init container", "container", c.spec.Name, "err", err)
			return
		}
		if !p.awaitInit(ctx, c) {
			return
		}
		if inSequence && c == trigger {
			return
		}
	}
	if inSequence {
		return
	}
	names := make([]string, len(p.apps))
	for i, c := range p.apps {
		names[i] = c.spec.Name
	}
	err := p.spec.StartPolicy.Start(ctx, &podStarter{p: p, names: names, start: func(ctx context.Context, name string) error {
		c, ok := p.byName[name]
		if !ok || c.init {
			return errUnknownContainer(name)
		}
		return c.rerun(ctx)
	}})
	if err != nil && ctx.Err() == nil {
		p.log.Info("restart of all containers: start", "err", err)
	}
}

// awaitInit waits until a rerun init container c has started (a sidecar) or completed (a
// regular one); false if the pod failed, stops or ctx ended.
func (p *Worker) awaitInit(ctx context.Context, c *Container) bool {
	var attempt int
	p.do(func() { attempt = c.restartCount })
	st, err := p.WaitFor(ctx, func(st PodStatus) bool {
		cs := p.view().ctrs[c].status
		if cs.RestartCount < attempt {
			return st.Phase == PhaseFailed || st.Stopping
		}
		if c.sidecar {
			return cs.Started || st.Phase == PhaseFailed || st.Stopping
		}
		t := cs.State.Terminated
		return t != nil && t.ExitCode == 0 || st.Phase == PhaseFailed || st.Stopping
	})
	return err == nil && st.Phase != PhaseFailed && !st.Stopping
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
	c.dropInstance(prev)
	return c.startInstance(ctx, inst)
}

// setRestartingCondition sets the pod's AllContainersRestarting condition.
func (p *Worker) setRestartingCondition(restarting bool) {
	cond := PodCondition{Type: AllContainersRestarting, Status: ConditionFalse, LastTransitionTime: time.Now()}
	if restarting {
		cond.Status, cond.Reason, cond.Message = ConditionTrue, string(ReasonRestartAllContainersStarted), "container exited with restart policy rule"
	}
	p.update(func() {
		i := slices.IndexFunc(p.custom, func(c PodCondition) bool { return c.Type == AllContainersRestarting })
		switch {
		case i < 0:
			p.custom = append(p.custom, cond)
		case p.custom[i].Status != cond.Status:
			p.custom[i] = cond
		}
	})
}

// errUnknownContainer is a start policy's request for a container the pod does not have.
func errUnknownContainer(name string) error {
	return fmt.Errorf("start policy asked for unknown container %q", name)
}
