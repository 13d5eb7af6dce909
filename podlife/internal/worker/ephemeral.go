package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/containerd/containerd/v2/pkg/oci"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/worker/ephemeral"
	"github.com/podlife/podlife/podlife/internal/worker/status"
)

// AddEphemeralContainer adds an ephemeral container to the running pod and starts it (see
// Pod.AddEphemeralContainer; validated by ephemeral.Validate). Once validated, it is in the pod's
// EphemeralContainerStatuses and never removed nor restarted; the pod's stop stops it. If ctx
// ends first, the container goes on starting and the call returns ctx's error.
func (p *Worker) AddEphemeralContainer(ctx context.Context, spec EphemeralContainerSpec) (*Container, error) {
	select {
	case <-p.started:
		if p.startErr != nil {
			return nil, fmt.Errorf("pod %q did not start: %w", p.name, p.startErr)
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if p.host.IsClosed() {
		return nil, fmt.Errorf("pod %q: %w", p.name, ErrClosed)
	}
	spec = api.EphemeralWithDefaults(spec) // admission: defaults, then validation (on the loop, below)
	cs := spec.ContainerSpec
	c := &Container{pod: p, spec: &cs, ephemeral: true, targetName: spec.TargetContainerName,
		stdin: spec.Stdin, tty: spec.TTY,
		plannedID: NewID(), prepared: make(chan struct{}), st: status.NewContainer(false)}
	err := fmt.Errorf("pod %q: %w", p.name, ErrClosed) // unless the loop runs the closure
	done := make(chan error, 1)
	p.updateIf(func() bool {
		if p.stopping || p.terminated || p.phase == PhaseSucceeded || p.phase == PhaseFailed {
			err = fmt.Errorf("pod %q: add ephemeral container %q: %w", p.name, cs.Name, ErrPodStopping)
			return false
		}
		if err = p.validateEphemeralOwned(&spec); err != nil {
			return false
		}
		p.ephemerals = append(p.ephemerals, c)
		// Spawned on the loop, which orders it with the stop's wait (awaitRestarts).
		p.spawn(gEphemeral, func() {
			c.prepare(leasedCtx(p.startCtx, p))
			done <- c.start(p.startCtx)
		})
		return true
	})
	if err != nil {
		return nil, err
	}
	select {
	case err := <-done:
		if err != nil && p.isStopping() {
			return c, fmt.Errorf("pod %q: ephemeral container %q: %w (%w)", p.name, cs.Name, ErrPodStopping, err)
		}
		return c, err
	case <-ctx.Done():
		return c, ctx.Err()
	}
}

// validateEphemeralOwned (on the loop) checks an ephemeral container's spec against the pod
// (ephemeral.Validate).
func (p *Worker) validateEphemeralOwned(spec *EphemeralContainerSpec) error {
	pod := ephemeral.Pod{Name: p.name, Spec: &p.spec, Containers: maps.Keys(p.byName),
		AdmitContainerSecurity: p.host.AdmitContainerSecurity, AdmitPodSecurity: p.host.AdmitPodSecurity}
	for _, e := range p.ephemerals {
		pod.Ephemerals = append(pod.Ephemerals, *e.spec)
	}
	return ephemeral.Validate(pod, spec)
}

// ephemeralPIDOpts is the PID namespace of an ephemeral container: the pod's if it shares one
// (specInput has set it), else its target's (pinned until unpinTarget, once the container's task
// is created), else a new one.
func (c *Container) ephemeralPIDOpts() ([]oci.SpecOpts, error) {
	p := c.pod
	if c.targetName == "" || p.spec.HostPID || p.spec.ShareProcessNamespace {
		return nil, nil
	}
	t, ok := p.byName[c.targetName]
	if !ok {
		return nil, fmt.Errorf("target container %q: %w", c.targetName, ErrNotFound)
	}
	target := ephemeral.Target{Name: c.targetName}
	p.do(func() {
		if t.cur != nil && t.cur.running && !t.cur.exitRecorded { // as the status shows it
			target.Task, target.Exited, target.Cgroup = t.cur.task, t.cur.exited, p.containerCgroup(t.cur.id)
		}
	})
	dir := filepath.Join(p.sandbox.Dir(), "ns", "target-"+c.plannedID)
	opts, err := ephemeral.PinTarget(p.host.Tasks, dir, target)
	if err == nil {
		c.targetPin = dir
	}
	return opts, err
}

// unpinTarget removes the pin of the target's PID namespace, if any.
func (c *Container) unpinTarget() {
	if c.targetPin == "" {
		return
	}
	if err := ephemeral.Unpin(c.pod.host.Tasks, c.targetPin); err != nil {
		c.pod.log.Warn("target's PID namespace left pinned", "container", c.spec.Name, "err", err)
	}
	c.targetPin = ""
}

// allContainers returns every container of the pod: init, app and ephemeral.
func (p *Worker) allContainers() []*Container {
	out := slices.Collect(maps.Values(p.byName))
	if !p.do(func() { out = append(out, p.ephemerals...) }) {
		out = append(out, p.view().ephemerals...)
	}
	return out
}
