package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"errors"
	"fmt"
	"os"

	"github.com/podlife/podlife/podlife/internal/worker/lifecycle"
	"github.com/podlife/podlife/podlife/internal/worker/observe"
	"github.com/podlife/podlife/podlife/internal/worker/record"
)

// errPostStartInterrupted is the postStart failure of a hook that its manager's death cut.
var errPostStartInterrupted = errors.New("the hook was interrupted: the process that ran it (the pod's previous manager) died before it returned")

// resume starts the supervision of a bound pod: status writer, record, watchers, probes, the
// restarts and hook failures due (each container's as observe.ResumeOf plans it), or the stop
// of a pod whose start was interrupted.
func (p *Worker) resume(plan *adoptPlan, previous int, forStop bool) {
	close(p.netReady)
	close(p.seqDone)
	close(p.started)
	p.shim.MarkReady()
	pr := observe.ResumePodOf(plan.Plan, p.supLoaded.Stop, forStop)
	// Bound before the loop runs (as New builds a pod): the state is set here, then the
	// loop owns it.
	p.sandboxReady, p.stopping = pr.SandboxReady, pr.Stopping
	if pr.Failed != "" {
		p.failReason, p.reason, p.message = ReasonStartInterrupted, ReasonStartInterrupted, pr.Failed
	}
	p.publish()
	p.spawn(gLoop, p.runLoop)
	if err := p.writeRecord(); err != nil {
		p.log.Warn("pod record not written: other processes will not see this manager", "err", err)
	}
	p.spawn(gStatus, func() { p.persistStatus(p.persistQuit) })
	p.emit("", EventNormal, ReasonAdopted, fmt.Sprintf("Pod adopted by pid %d%s (its previous manager, pid %d, is gone)", os.Getpid(), pr.Why, previous))
	if plan.Stopped {
		// No task is left: the pod was stopped, or its start never got to its tasks. The stop
		// runs again (or for the first time) to finish the teardown: network, namespaces, pause.
		if !forStop {
			p.spawn(gStop, func() { p.stopWith(p.lifeCtx, 0, false, nil) })
		}
		return
	}
	watchOnly := forStop || pr.FinishStop // only the exits are followed, and the stop finished
	if !watchOnly {
		if p.host.Cfg.ContainerLogger == "" {
			p.emit("", EventWarning, ReasonLogsNotFollowed, "The containers' output went through the previous manager, which is gone: their current attempts' output is not logged (set Config.ContainerLogger)")
		}
		p.spawn(gDeadline, p.enforceDeadline) // the spec's deadline, or the one set on the running pod
		p.spawn(gStorage, p.enforceStorage)
		for _, c := range append(append([]*Container{}, p.inits...), p.apps...) {
			if sup := p.supLoaded.Containers[c.spec.Name]; sup.BackoffDelay > 0 {
				p.host.Backoff.Restore(c.backoffKey(), sup.BackoffDelay, sup.BackoffUpdated)
			}
		}
	}
	if plan.pauseExited != nil {
		p.spawn(gPauseWatch, func() { p.watchPause(plan.pauseExited) })
	}
	for c, a := range plan.cur {
		inst := a.inst
		sup := p.supLoaded.Containers[c.spec.Name]
		r := observe.ResumeOf(observe.Current{ID: inst.id, Attempt: inst.attempt, Task: a.state, Sup: sup,
			PostStart: c.spec.PostStart != nil, StartupProbe: c.spec.StartupProbe != nil, Ephemeral: c.ephemeral,
			Interrupted: plan.Interrupted != "", WatchOnly: watchOnly})
		if r.MarkPostStartFailed {
			// Before its exit is recorded: its restart then shows the hook's failure.
			c.persistSupervision(func(s *record.ContainerSupervision) { s.PostStart = "" })
			c.markPostStartFailed(errPostStartInterrupted)
		}
		if r.Attach {
			inst.resumeAttachCopy(p) // an interactive one's output to its log and clients
		}
		if r.Watch {
			p.spawn(gExitWatch, func() { c.watchExit(inst) })
		}
		if r.FailPostStart {
			c.persistSupervision(func(s *record.ContainerSupervision) { s.PostStart = "" })
			p.spawn(gPostStart, func() { _ = c.postStartFailed(inst, errPostStartInterrupted) })
		}
		if r.Probes {
			c.startProbesFrom(inst, r.StartupPassed)
		}
		if r.Start {
			// A restart cut between its create and its start: the start follows.
			p.spawnRestart(gRestart, func() {
				if err := c.startInstance(p.startCtx, inst); err != nil && p.startCtx.Err() == nil {
					p.log.Info("restart failed", "container", c.spec.Name, "err", err)
				}
			})
		}
	}
	switch intent := p.supLoaded.Stop; {
	case pr.FinishStop:
		left := intent.Remaining(p.host.Clock.Now())
		p.spawn(gStop, func() { p.stopWith(p.lifeCtx, left, intent.Hooks && left > 0, nil) })
	case forStop:
	case pr.Failed == "":
		for c, term := range plan.restartNoPrev {
			p.spawnRestart(gRestart, func() { c.restart(p.startCtx, nil, term) })
		}
	default:
		p.emit("", EventWarning, ReasonStartInterrupted, pr.Failed)
		p.spawn(gStop, func() { p.stopWith(p.lifeCtx, GracePeriod(&p.spec), true, nil) })
	}
}

// markPostStartFailed records the failure of a postStart hook whose container has exited
// already: its restart (if any) shows it as a postStart failure would.
func (c *Container) markPostStartFailed(hookErr error) {
	p := c.pod
	msg := lifecycle.PostStartMessage(c.spec.PostStart, p.name, c.spec.Name, hookErr)
	p.do(func() { c.st.HookFailed = msg })
	p.emit(c.spec.Name, EventWarning, ReasonFailedPostStartHook, "PostStartHook failed")
}
