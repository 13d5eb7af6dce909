package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/resizing"
)

// resourcesOwned are the container's CPU and memory as allocated: its spec's, or the last
// resize's (see package resizing). It runs on the loop.
func (c *Container) resourcesOwned() Resources { return *cmp.Or(c.allocated, &c.spec.Resources) }

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
	if c.st.State.Running != nil {
		st.Resources = &r
	}
}

// Resize changes the CPU and memory of the named container of the running pod (see
// Pod.Resize and package resizing); the pod's resizes run one at a time.
func (p *Worker) Resize(ctx context.Context, name string, next Resources) error {
	c, ok := p.byName[name]
	if !ok || c.ephemeral {
		return fmt.Errorf("resize: pod %q: container %q: %w", p.name, name, ErrNotFound)
	}
	end, err := p.resizing.Begin(ctx, p.owner.Done())
	if err != nil {
		return fmt.Errorf("resize: pod %q: %w", p.name, err)
	}
	defer end()
	h := resizing.Host{Tasks: p.host.Tasks, Retry: p.host.Retry}
	return resizing.Resize(ctx, &resizeTarget{c: c}, h, p.name, &p.spec, c.spec, next)
}

// resizeTarget is a container being resized, as package resizing sees it (resizing.Target).
type resizeTarget struct {
	c    *Container
	inst *instance // the running instance (Running)
}

func (t *resizeTarget) Stopping() bool { return t.c.pod.isStopping() }

func (t *resizeTarget) Emit(typ EventType, reason Reason, msg string) {
	t.c.pod.emit(t.c.spec.Name, typ, reason, msg)
}

func (t *resizeTarget) Allocated() map[string]Resources {
	p, cur := t.c.pod, map[string]Resources{}
	p.onLoopOrAfter(func() {
		for _, o := range slices.Concat(p.inits, p.apps) {
			cur[o.spec.Name] = o.resourcesOwned()
		}
	})
	return cur
}

func (t *resizeTarget) Running() (id string, task tasks.Task) {
	c := t.c
	c.pod.do(func() {
		if c.cur != nil && c.cur.running && c.st.State.Running != nil && c.cur.task != nil {
			t.inst, id, task = c.cur, c.cur.id, c.cur.task
		}
	})
	return id, task
}

func (t *resizeTarget) Allocate(next Resources) {
	p, c := t.c.pod, t.c
	p.update(func() { c.allocated = &next })
	p.do(func() { resizing.Record(&p.recorded, c.init, c.spec.Name, next) })
	if err := p.writeRecord(); err != nil {
		p.log.Warn("resize: not recorded (an adopter would need the spec as resized)", "container", c.spec.Name, "err", err)
	}
}

func (t *resizeTarget) Restart(ctx context.Context) {
	p, c, inst := t.c.pod, t.c, t.inst
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
