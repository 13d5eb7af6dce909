package restarting

import (
	"context"
	"sync"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
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

// All is the pod's restart of all its containers in progress, I the worker's instance handle:
// the worker's loop state, read and written in closures on its loop only. The zero value is
// none in progress.
type All[I comparable] struct {
	// active: a restart of all the containers runs (its goroutine).
	active bool
	// killed are the instances this restart stops: their exits are not crashes.
	killed map[I]bool
	// again: another container's exit matched a RestartAllContainers rule meanwhile.
	again bool
}

// Active reports whether a restart of all the containers runs: every exit then restarts.
func (a *All[I]) Active() bool { return a.active }

// Exit takes the exit of instance inst first: handled reports whether the exit is the business
// of a restart of all the pod's containers (one this restart stopped, or one that starts or
// repeats such a restart: rule says the exit matched a RestartAllContainers rule), and start
// whether the caller must run [RunAll] now (spawned on its loop, which orders it with the
// stop's wait for the restarts). stopping: the pod is stopping, no restart starts.
func (a *All[I]) Exit(inst I, rule, stopping bool) (handled, start bool) {
	switch {
	case a.killed[inst]:
		return true, false
	case !rule || stopping:
		return false, false
	case a.active:
		a.again = true
		return true, false
	}
	a.active = true
	return true, true
}

// Kill notes that this restart stops inst: its exit is not a crash.
func (a *All[I]) Kill(inst I) {
	if a.killed == nil {
		a.killed = map[I]bool{}
	}
	a.killed[inst] = true
}

// End ends one restart of all the containers and reports whether another one runs now: one was
// asked for meanwhile and goOn (the pod is not stopping, the restart's context not done).
func (a *All[I]) End(goOn bool) (again bool) {
	a.killed = nil
	again = a.again && goOn
	a.again = false
	a.active = again
	return again
}

// Pod is the pod as a restart of all its containers needs it, implemented by the worker: each
// method runs closures on the worker's loop or does its I/O, and returns values. Containers
// are named as in the pod's spec.
type Pod interface {
	// SequenceDone is closed once the pod's start sequence has returned.
	SequenceDone() <-chan struct{}
	// Emit records an event of the pod.
	Emit(container string, typ api.EventType, reason api.Reason, msg string)
	// SetRestarting sets the pod's AllContainersRestarting condition (see [Condition]).
	SetRestarting(restarting bool)
	// Kill notes the container's current instance as this restart's ([All.Kill]) and returns
	// its stop (preStop hook, the pod's grace period), nil if the container has no instance.
	Kill(name string) (stop func())
	// Stopping reports whether the pod's stop has begun.
	Stopping() bool
	// Rerun starts the container's next instance at once (no back-off), its last state the
	// run that ended; a container never created starts as at the pod's start.
	Rerun(ctx context.Context, name string) error
	// AwaitInit waits until a rerun init container has started (a sidecar) or completed (a
	// regular one); false if the pod failed, stops or ctx ended.
	AwaitInit(ctx context.Context, name string) bool
	// StartApps starts the app containers again as at the pod's start (its start policy).
	StartApps(ctx context.Context) error
	// End ends the restart on the loop ([All.End]) and reports whether another one runs now.
	End(ctx context.Context) (again bool)
	// Info logs a failed step.
	Info(msg string, args ...any)
}

// Plan is what a restart of all the containers works on: the pod's init and app containers,
// in order, and the container whose exit started it.
type Plan struct {
	Inits, Apps []string
	Trigger     string
	TriggerInit bool // the trigger is an init container
}

// RunAll restarts every container of the pod in place (see the top of this file), and again
// while another exit asked for it meanwhile.
func RunAll(ctx context.Context, pod Pod, plan Plan) {
	for {
		runOnce(ctx, pod, plan)
		if !pod.End(ctx) {
			return
		}
	}
}

// runOnce is one restart of all the containers.
func runOnce(ctx context.Context, pod Pod, plan Plan) {
	inSequence := false
	select {
	case <-pod.SequenceDone():
	default:
		// The start sequence is under way: an init container's rule restarts the init
		// containers; an app container's waits for the sequence to end first.
		inSequence = plan.TriggerInit
		if !inSequence {
			select {
			case <-pod.SequenceDone():
			case <-ctx.Done():
				return
			}
		}
	}
	pod.Emit(plan.Trigger, api.EventNormal, api.ReasonKilling, "Container "+plan.Trigger+" exited with a RestartAllContainers rule: restarting all the pod's containers")
	pod.SetRestarting(true)
	// Stopped: the app containers and the sidecars that run, at once and in parallel.
	var stop []string
	if !inSequence {
		stop = append(stop, plan.Apps...)
	}
	stop = append(stop, plan.Inits...)
	var wg sync.WaitGroup
	for _, name := range stop {
		if kill := pod.Kill(name); kill != nil {
			wg.Go(kill)
		}
	}
	wg.Wait()
	pod.SetRestarting(false)
	if ctx.Err() != nil || pod.Stopping() {
		return
	}
	// The init containers run again in order; with the sequence under way, those up to the
	// trigger (the sequence waits for the trigger to complete, then starts the app containers).
	for _, name := range plan.Inits {
		if err := pod.Rerun(ctx, name); err != nil {
			pod.Info("restart of all containers: init container", "container", name, "err", err)
			return
		}
		if !pod.AwaitInit(ctx, name) {
			return
		}
		if inSequence && name == plan.Trigger {
			return
		}
	}
	if inSequence {
		return
	}
	if err := pod.StartApps(ctx); err != nil && ctx.Err() == nil {
		pod.Info("restart of all containers: start", "err", err)
	}
}

// Condition is the pod's AllContainersRestarting condition, True while a restart of all its
// containers stops them, at now.
func Condition(restarting bool, now time.Time) api.PodCondition {
	cond := api.PodCondition{Type: api.AllContainersRestarting, Status: api.ConditionFalse, LastTransitionTime: now}
	if restarting {
		cond.Status, cond.Reason, cond.Message = api.ConditionTrue, string(api.ReasonRestartAllContainersStarted), "container exited with restart policy rule"
	}
	return cond
}

// SetCondition puts cond into conds: appended if conds has none of its type, replacing the one
// there if its status changed (the transition time is then cond's).
func SetCondition(conds []api.PodCondition, cond api.PodCondition) []api.PodCondition {
	for i := range conds {
		if conds[i].Type == cond.Type {
			if conds[i].Status != cond.Status {
				conds[i] = cond
			}
			return conds
		}
	}
	return append(conds, cond)
}

// InitRerunOver reports whether the wait for an init container rerun by a restart of all the
// containers is over, from the pod's status st and the container's cs: it has started (a
// sidecar) or completed (a regular one) in an attempt after prev (its restart count before the
// rerun), or the pod failed or stops.
func InitRerunOver(st api.PodStatus, cs api.ContainerStatus, prev int, sidecar bool) bool {
	switch {
	case st.Phase == api.PhaseFailed || st.Stopping:
		return true
	case cs.RestartCount < prev:
		return false
	case sidecar:
		return cs.Started
	}
	t := cs.State.Terminated
	return t != nil && t.ExitCode == 0
}
