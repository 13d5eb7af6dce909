package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"fmt"
	"slices"

	"github.com/podlife/podlife/podlife/internal/ocibuild"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// In-place resize (Kubernetes' InPlacePodVerticalScaling), as the kubelet does it: the
// resize is checked (api.CheckResize: the API server's rules, the QoS class kept), then
// allocated (resizeState.alloc: what the container's status reports as allocated and what its
// next instance is created with), then actuated: the running instance's cgroup is updated
// through containerd (runc update), or, where the container's resizePolicy says
// RestartContainer for a resource that changes, the container is stopped and restarted at
// once with the new resources (its restart count grows, no crash-loop back-off). The resized
// resources go into the pod's record, spec and fingerprints alike (writeRecord), so that an
// adopter given the spec as resized (the spec an API server holds after the resize) adopts it,
// and restarts its containers with them.

// resourcesOwned are the container's CPU and memory as allocated: its spec's, or the last
// resize's. It runs on the loop.
func (c *Container) resourcesOwned() Resources {
	if r := c.allocated; r != nil {
		return *r
	}
	return c.spec.Resources
}

// resources is resourcesOwned, read through the loop (or after it ended: nothing writes then).
func (c *Container) resources() (r Resources) {
	c.pod.onLoopOrAfter(func() { r = c.resourcesOwned() })
	return r
}

// statusResources sets st's allocated resources, and its actual ones while an instance runs;
// on the loop (statusOwned).
func (c *Container) statusResources(st *ContainerStatus) {
	if c.ephemeral {
		return
	}
	r := c.resourcesOwned()
	st.AllocatedResources = r
	if c.state.Running != nil {
		st.Resources = &r
	}
}

// Resize changes the CPU and memory of the named container of the running pod (see
// Pod.Resize).
func (p *Worker) Resize(ctx context.Context, name string, next Resources) error {
	c, ok := p.byName[name]
	if !ok || c.ephemeral {
		return fmt.Errorf("resize: pod %q: container %q: %w", p.name, name, ErrNotFound)
	}
	end, err := p.beginResize(ctx)
	if err != nil {
		return err
	}
	defer end()
	if p.isStopping() {
		return fmt.Errorf("resize: pod %q: %w", p.name, ErrPodStopping)
	}
	cur := map[string]Resources{}
	p.onLoopOrAfter(func() {
		for _, o := range slices.Concat(p.inits, p.apps) {
			cur[o.spec.Name] = o.resourcesOwned()
		}
	})
	if errs := CheckResize(&p.spec, cur, name, next); len(errs) > 0 {
		return &ValidationError{Pod: p.name, Errs: errs}
	}
	old := cur[name]
	if old == next {
		return nil
	}
	restart := c.spec.ResizePolicy.Restarts(old, next)
	var inst *instance
	var task tasks.Task
	p.do(func() {
		if c.cur != nil && c.cur.running && c.state.Running != nil {
			inst, task = c.cur, c.cur.task
		}
	})
	if task != nil && !restart {
		if err := p.resizeInPlace(ctx, c, inst.id, task, old, next); err != nil {
			return err
		}
	}
	p.update(func() { c.allocated = &next }) // and its status shows the new resources
	if err := p.recordResize(c, next); err != nil {
		p.log.Warn("resize: not recorded (an adopter would need the spec as resized)", "container", name, "err", err)
	}
	p.emit(name, EventNormal, ReasonResized, fmt.Sprintf("Container %s resized: %s", name, describeResources(next)))
	if task != nil && restart {
		p.restartResized(ctx, c, inst)
	}
	return nil
}

// beginResize waits for the pod's resize in progress, if any, to end, then makes this one the
// pod's resize in progress (p.resizing, on the loop): the pod's resizes run one at a time. end
// ends it. It fails if ctx ends first, or with ErrClosed once the pod's loop has ended.
func (p *Worker) beginResize(ctx context.Context) (end func(), err error) {
	for {
		var busy, mine chan struct{}
		if !p.do(func() {
			if busy = p.resizing; busy == nil {
				mine = make(chan struct{})
				p.resizing = mine
			}
		}) {
			return nil, fmt.Errorf("resize: pod %q: %w", p.name, ErrClosed)
		}
		if mine != nil {
			return func() {
				// The loop may have ended meanwhile: the waiters then see it end too.
				p.do(func() { p.resizing = nil })
				close(mine)
			}, nil
		}
		select {
		case <-busy:
		case <-ctx.Done():
			return nil, fmt.Errorf("resize: pod %q: %w", p.name, ctx.Err())
		case <-p.owner.Done():
		}
	}
}

// resizeInPlace updates the running instance's cgroup. A memory limit is not decreased to
// or below what the container uses (the kubelet's validateMemoryResizeAction): the error then
// wraps ErrResizeNotNow.
func (p *Worker) resizeInPlace(ctx context.Context, c *Container, id string, task tasks.Task, old, next Resources) error {
	up, ok := task.(tasks.Updater)
	if !ok {
		return fmt.Errorf("resize: pod %q: container %q: the runtime cannot update a running container: %w", p.name, c.spec.Name, ErrNotSupported)
	}
	if next.MemoryLimit > 0 && (old.MemoryLimit == 0 || next.MemoryLimit < old.MemoryLimit) {
		samples, err := p.host.Tasks.Sample(ctx, []string{id})
		s, found := samples[id]
		switch {
		case err != nil:
			return fmt.Errorf("resize: pod %q: container %q: memory usage: %w", p.name, c.spec.Name, err)
		case !found || !s.Running:
			return fmt.Errorf("resize: pod %q: container %q: missing memory usage: %w", p.name, c.spec.Name, ErrResizeNotNow)
		case s.Metrics.MemoryUsage >= uint64(next.MemoryLimit):
			return fmt.Errorf("resize: pod %q: cannot decrease memory limits: attempting to set container %q memory limit (%d) below current usage (%d): %w",
				p.name, c.spec.Name, next.MemoryLimit, s.Metrics.MemoryUsage, ErrResizeNotNow)
		}
	}
	if err := p.host.Retry(ctx, func() error { return up.Update(ctx, ocibuild.LinuxResources(next)) }); err != nil {
		return fmt.Errorf("resize: pod %q: container %q: update: %w", p.name, c.spec.Name, err)
	}
	return nil
}

// restartResized stops the running instance inst of c (its preStop hook and grace period, as
// the kubelet's kill for a resize) and waits, within ctx, until its next instance, created with
// the new resources, has replaced it: at once, the crash-loop back-off reset as the kubelet
// restarts a container for a resize without one.
func (p *Worker) restartResized(ctx context.Context, c *Container, inst *instance) {
	p.do(func() { c.resizeRestart = true })
	defer p.do(func() { c.resizeRestart = false })
	p.host.Backoff.Reset(c.backoffKey())
	c.killInstance(inst, GracePeriod(&p.spec), "Container "+c.spec.Name+" resize requires restart", true)
	for {
		ch := p.view().notify
		replaced := false
		p.do(func() { replaced = c.cur != inst || p.stopping })
		if replaced {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		case <-p.removed:
			return
		}
	}
}

// recordResize writes the resized resources into the pod's record: its spec and fingerprints
// are then those of the spec as resized (see the top of this file).
func (p *Worker) recordResize(c *Container, next Resources) error {
	p.do(func() {
		list := &p.recorded.Containers
		if c.init {
			list = &p.recorded.InitContainers
		}
		*list = slices.Clone(*list) // the recorded form may share its array with another spec
		for i := range *list {
			if (*list)[i].Name == c.spec.Name {
				(*list)[i].Resources = next
			}
		}
	})
	return p.writeRecord()
}

// describeResources renders r as a resize event's message: Kubernetes' quantities.
func describeResources(r Resources) string {
	return fmt.Sprintf("requests cpu=%dm memory=%d, limits cpu=%dm memory=%d", r.CPURequest, r.MemoryRequest, r.CPULimit, r.MemoryLimit)
}
