package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"cmp"
	"context"
	"errors"
	"time"

	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/attempt"
	"github.com/podlife/podlife/podlife/internal/worker/exitwatch"
	"github.com/podlife/podlife/podlife/internal/worker/teardown"
)

// How an instance ends: its kill (teardown), its exit's watch (exitwatch), its deletion.

// kill stops the current instance (see killInstance).
func (c *Container) kill(grace time.Duration, reason string, withHooks bool) {
	if inst, _ := c.current(); inst != nil {
		c.killInstance(inst, grace, reason, withHooks)
	}
}

// killInstance stops an instance's process the kubelet's way (see teardown.KillInstance). At
// the pod's stop, a sidecar's stop signal waits, after its preStop, until the containers it
// outlives have exited (within the grace period).
func (c *Container) killInstance(inst *instance, grace time.Duration, reason string, withHooks bool) {
	p := c.pod
	teardown.KillInstance(p.lifeCtx, p.conn(), teardown.Target{Exited: inst.exited, NeverRan: inst.markNeverRan, Emit: p.emitter(c.spec.Name),
		State: func() (task tasks.Task, running, exited bool) {
			p.do(func() { task, running, exited = inst.task, inst.running, inst.exitRecorded })
			return task, running, exited
		},
		PreStop: func(ctx context.Context) error { return c.runHook(ctx, c.spec.PreStop, "PreStop") },
		AwaitOutlived: func(deadline time.Time) {
			if c.sidecar && p.isStopping() {
				p.waitOutlived(c, deadline)
			}
		}}, teardown.Kill{Name: c.spec.Name, Grace: grace, Reason: reason, PreStop: withHooks && c.spec.PreStop != nil, Signal: c.stopSignal})
}

// deleteInstances removes every instance's task (and, with containers, its container).
func (c *Container) deleteInstances(ctx context.Context, containers bool) error {
	var live []*instance
	c.pod.do(func() { live = append([]*instance(nil), c.live...) })
	del := (*instance).deleteTask
	if containers {
		// An instance without a task may be a create a dead manager left cut short: delete
		// sweeps the cgroups runc made for it before containerd undid the create.
		del = (*instance).delete
		defer c.pod.do(func() { c.live = nil })
	}
	var errs []error
	for _, i := range live {
		errs = append(errs, del(i, ctx))
	}
	return errors.Join(errs...)
}

// watchExit records an instance's exit and decides what follows (see exitwatch.Watch).
func (c *Container) watchExit(inst *instance) {
	p := c.pod
	exitwatch.Watch(exitwatch.Instance{Name: c.spec.Name, ID: inst.id, Log: p.log,
		Await: func() (uint32, time.Time, error) {
			var task tasks.Task
			var ch <-chan ctrd.ExitStatus
			if !p.do(func() { task, ch = inst.task, inst.exitCh }) {
				return 0, time.Time{}, ErrClosed // the loop has ended: the runtime was closed
			}
			return attempt.AwaitExit(p.watchCtx, p.conn(), attempt.Waited{ // Close ends the wait
				ID: inst.id, Name: c.spec.Name, Task: task, Exit: ch, ShimSocket: func() string { return p.instanceShimSocket(inst) }})
		},
		OOMKilled: func() bool { return inst.cg.OOMKilled() },
		Message: func(code int) string {
			var task tasks.Task
			p.do(func() { task = inst.task })
			return attempt.TerminationMessage(attempt.Exited{TermPath: inst.termPath, LogPath: inst.logPath, Task: task, Log: inst.logs(),
				Fallback:   c.spec.TerminationMessagePolicy == TerminationMessageFallbackToLogsOnError,
				Containers: len(p.spec.Containers) + len(p.spec.InitContainers)}, code)
		},
		Record: func(e exitwatch.Exit) (term *StateTerminated) {
			p.update(func() {
				term = e.Terminated(inst.startedAt)
				inst.exitRecorded = true
				if inst.cancel != nil {
					inst.cancel() // its probes
				}
				if c.cur == inst {
					c.st.Exit(term, func() bool { return !p.stopping && c.shouldRestartOwned(term.ExitCode) })
				}
			})
			return term
		},
		Emit: func(t time.Time, typ EventType, reason Reason, msg string) {
			p.emitAt(t, c.spec.Name, typ, reason, msg)
		},
		Done: func() { close(inst.exited) }, OnExit: func(term *StateTerminated) { c.onExit(inst, term) }})
}

// instanceShimSocket is the socket of the shim that runs inst: the pod's shim group's, or with
// one shim per container, the one derived from the instance's own ID (the formula of
// containerd's shim manager, see podsandbox.Shim.SocketOf).
func (p *Worker) instanceShimSocket(inst *instance) string {
	return p.shim.SocketOf(cmp.Or(p.shimGroup(), inst.id))
}

// terminationDir is the directory, in the pod's, of the termination message files.
const terminationDir = attempt.TerminationDir
