package worker

import (
	"github.com/containerd/errdefs"
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/worker/record"
	"github.com/podlife/podlife/probe"
)

// startProbes runs once an instance's postStart hook has returned: the startup probe first (if
// any), then readiness and liveness. Probes run in goroutines of their own: a slow or hanging
// probe delays nothing else. They stop when the instance exits; the startup and liveness probes
// also when the pod stops, while the readiness probe goes on until the exit (the kubelet's: a
// terminating container turns unready when its readiness probe fails).
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
	if c.spec.StartupProbe == nil || startupDone {
		c.markStarted(ctx, readyCtx, inst)
		return
	}
	c.runProbe(ctx, inst, probe.Startup, c.spec.StartupProbe, func(r probe.Result) {
		switch r {
		case probe.Success:
			c.persistSupervision(func(s *record.ContainerSupervision) { s.Started = inst.id })
			c.markStarted(ctx, readyCtx, inst)
		case probe.Failure:
			go c.killForProbe(inst, probe.Startup, c.spec.StartupProbe)
		}
	})
}

// markStarted records that the instance has started and starts its readiness probe (under
// readyCtx) and liveness probe (under ctx).
func (c *Container) markStarted(ctx, readyCtx context.Context, inst *instance) {
	p := c.pod
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
	if !current {
		return
	}
	if spec := c.spec.ReadinessProbe; spec != nil {
		c.runProbe(readyCtx, inst, probe.Readiness, spec, func(r probe.Result) {
			p.update(func() {
				if c.cur == inst && c.state.Running != nil {
					c.ready = c.started && r == probe.Success
				}
			})
		})
	}
	if spec := c.spec.LivenessProbe; spec != nil {
		c.runProbe(ctx, inst, probe.Liveness, spec, func(r probe.Result) {
			if r == probe.Failure {
				go c.killForProbe(inst, probe.Liveness, spec)
			}
		})
	}
}

// runProbe starts a probe worker for the instance; onChange gets every change of its result.
func (c *Container) runProbe(ctx context.Context, inst *instance, kind probe.Kind, spec *probe.Spec, onChange func(probe.Result)) {
	p := c.pod
	name := capitalize(kind.String())
	w := probe.NewWorker(probe.WorkerConfig{
		Kind: kind, Spec: *spec, Target: c.target(), Clock: p.rt.Clock,
		StartedAt: inst.startedAt, FastPeriod: spec.FastPeriod,
		OnResult: func(r probe.Result, out string) {
			switch r {
			case probe.Failure, probe.Unknown:
				p.emit(c.spec.Name, EventWarning, api.ReasonUnhealthy, fmt.Sprintf("%s probe failed: %s", name, strings.TrimSpace(out)))
			case probe.Warning:
				p.emit(c.spec.Name, EventWarning, api.ReasonProbeWarning, fmt.Sprintf("%s probe warning: %s", name, strings.TrimSpace(out)))
			}
		},
		OnTimedResult: func(r probe.Result, _ string, took time.Duration) { c.publishProbe(kind, r, took) },
		OnError: func(err error) {
			if errors.Is(err, errdefs.ErrUnavailable) {
				// containerd is away: the period counts for nothing, and it is no news.
				p.log.Debug("probe skipped: containerd unavailable", "container", c.spec.Name, "probe", kind.String())
				return
			}
			c.publishProbe(kind, probe.Unknown, 0)
			p.emit(c.spec.Name, EventWarning, api.ReasonUnhealthy, fmt.Sprintf("%s probe errored and resulted in unknown state: %v", name, err))
		},
		OnChange: onChange,
	})
	go w.Run(ctx)
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

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// waitOutlived blocks a sidecar's stop signal until every app container and every sidecar after
// it in spec order has exited (the kubelet's termination order), or until deadline.
func (p *Worker) waitOutlived(sidecar *Container, deadline time.Time) {
	ctx, cancel := context.WithDeadline(p.lifeCtx, deadline)
	defer cancel()
	after := false
	var outlived []*Container
	for _, c := range p.inits {
		if after && c.sidecar {
			outlived = append(outlived, c)
		}
		after = after || c == sidecar
	}
	outlived = append(outlived, p.apps...)
	_, _ = p.WaitFor(ctx, func(PodStatus) bool {
		gone := true // also once the loop has ended
		p.do(func() {
			for _, c := range outlived {
				if c.cur != nil && c.cur.running && c.state.Running != nil {
					gone = false
				}
			}
		})
		return gone
	})
}
