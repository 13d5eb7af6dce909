package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"errors"
	"time"

	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/attempt"
	"github.com/podlife/podlife/podlife/internal/worker/teardown"
)

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
