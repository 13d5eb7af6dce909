package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"time"

	"github.com/podlife/podlife/podlife/internal/worker/restarting"
)

// exitRestartsAll takes the exit of inst (term) first (onExit): it reports whether the exit is
// the business of a restart of all the pod's containers (restarting.RunAll), which then handles
// it: the exit of a container this restart stopped, or one that starts such a restart.
func (c *Container) exitRestartsAll(inst *instance, term *StateTerminated) bool {
	p := c.pod
	rule := !c.ephemeral && c.spec.RestartsAll(term.ExitCode)
	handled := false
	p.do(func() {
		var start bool
		if handled, start = p.restartAll.Exit(inst, rule, p.stopping); start {
			// Spawned on the loop, which orders it with the stop's wait for the restarts
			// (the stop sets p.stopping on the loop before it waits).
			plan := restarting.Plan{Inits: containerNames(p.inits), Apps: containerNames(p.apps), Trigger: c.spec.Name, TriggerInit: c.init}
			p.spawn(gRestartAll, func() { restarting.RunAll(p.startCtx, allRestart{p}, plan) })
		}
	})
	return handled
}

// allRestart is the pod as a restart of all its containers sees it (restarting.Pod).
type allRestart struct{ p *Worker }

func (a allRestart) SequenceDone() <-chan struct{}                    { return a.p.seqDone }
func (a allRestart) Stopping() bool                                   { return a.p.isStopping() }
func (a allRestart) Info(msg string, args ...any)                     { a.p.log.Info(msg, args...) }
func (a allRestart) Rerun(ctx context.Context, name string) error     { return a.p.byName[name].rerun(ctx) }
func (a allRestart) Emit(ctr string, t EventType, r Reason, m string) { a.p.emit(ctr, t, r, m) }

func (a allRestart) SetRestarting(on bool) {
	cond := restarting.Condition(on, time.Now())
	a.p.update(func() { a.p.custom = restarting.SetCondition(a.p.custom, cond) })
}

func (a allRestart) Kill(name string) (stop func()) {
	p, c := a.p, a.p.byName[name]
	inst, _ := c.current()
	if inst == nil {
		return nil
	}
	p.do(func() { p.restartAll.Kill(inst) })
	return func() {
		c.killInstance(inst, GracePeriod(&p.spec), "Container "+name+" restarts with all the pod's containers", true)
	}
}

func (a allRestart) End(ctx context.Context) (again bool) {
	a.p.do(func() { again = a.p.restartAll.End(ctx.Err() == nil && !a.p.stopping) })
	return again
}

func (a allRestart) AwaitInit(ctx context.Context, name string) bool {
	p, c := a.p, a.p.byName[name]
	var attempt int
	p.do(func() { attempt = c.st.RestartCount })
	st, err := p.WaitFor(ctx, func(st PodStatus) bool {
		return restarting.InitRerunOver(st, p.view().ctrs[c].status, attempt, c.sidecar)
	})
	return err == nil && st.Phase != PhaseFailed && !st.Stopping
}

func (a allRestart) StartApps(ctx context.Context) error {
	return a.p.startApps(ctx, (*Container).rerun)
}

// containerNames returns the names of cs, in order.
func containerNames(cs []*Container) []string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.spec.Name
	}
	return names
}
