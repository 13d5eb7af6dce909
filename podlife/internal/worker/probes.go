package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"fmt"

	"github.com/podlife/podlife/podlife/internal/worker/probing"
	"github.com/podlife/podlife/podlife/internal/worker/record"
	"github.com/podlife/podlife/probe"
)

// startProbes runs once an instance's postStart hook has returned: the startup probe first (if
// any), then readiness and liveness (see package probing). They stop when the instance exits;
// the startup and liveness probes also when the pod stops, while the readiness probe goes on
// until the exit (the kubelet's: a terminating container turns unready when its readiness
// probe fails).
func (c *Container) startProbes(inst *instance) { c.startProbesFrom(inst, false) }

// startProbesFrom is startProbes; startupDone skips the startup probe (it succeeded for this
// instance under a previous manager: see Runtime.Adopt).
func (c *Container) startProbesFrom(inst *instance, startupDone bool) {
	p := c.pod
	ctx, cancel := context.WithCancel(p.startCtx)
	readyCtx, cancelReady := context.WithCancel(p.watchCtx) // ends at Close, not at a stop
	exited := true                                          // also if the loop has ended (the runtime was closed)
	p.do(func() {
		// On the loop, ordered with the exit watcher's cancel.
		select {
		case <-inst.exited:
		default:
			exited = false
			inst.cancel = func() { cancel(); cancelReady() }
		}
	})
	if exited {
		cancel()
		cancelReady()
		return
	}
	set := probing.Start(ctx, readyCtx, probing.Config{
		Pod: p.name, Namespace: p.spec.Namespace, PodUID: p.uid, Container: c.spec.Name,
		Startup: c.spec.StartupProbe, Liveness: c.spec.LivenessProbe,
		Readiness: c.spec.ReadinessProbe, StartupDone: startupDone,
		Target: c.target(), StartedAt: inst.startedAt, Clock: p.host.Clock, Log: p.log,
		Warn:          func(reason Reason, msg string) { p.emit(c.spec.Name, EventWarning, reason, msg) },
		Publish:       p.host.PublishProbe,
		StartupPassed: func() { c.persistSupervision(func(s *record.ContainerSupervision) { s.Started = inst.id }) },
		Started: func() bool {
			current := false
			p.updateIf(func() bool {
				if c.cur != inst || c.state.Running == nil {
					return false
				}
				current = true
				c.started = true
				c.ready = c.spec.ReadinessProbe == nil
				return true
			})
			return current
		},
		Ready: func(ok bool) {
			p.update(func() {
				if c.cur == inst && c.state.Running != nil {
					c.ready = c.started && ok
				}
			})
		},
		Kill: func(kind probe.Kind, spec *probe.Spec) { c.killForProbe(inst, kind, spec) },
	})
	// The probe workers and their kills end with the instance (or Abandon): the pod's group
	// awaits them through the set.
	p.spawn(gProbes, set.Wait)
}

// killForProbe kills an instance whose liveness or startup probe failed, with the probe's grace
// period if it has one; its exit then restarts it per the restart policy.
func (c *Container) killForProbe(inst *instance, kind probe.Kind, spec *probe.Spec) {
	p := c.pod
	if p.isStopping() {
		return
	}
	msg := fmt.Sprintf("Container %s failed %s probe", c.spec.Name, kind)
	if c.shouldRestart(137) {
		msg += ", will be restarted"
	}
	grace := GracePeriod(&p.spec)
	if spec.TerminationGracePeriod != nil {
		grace = *spec.TerminationGracePeriod
	}
	c.killInstance(inst, grace, msg, true)
}
