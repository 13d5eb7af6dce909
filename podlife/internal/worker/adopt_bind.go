package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/worker/observe"
)

// adoptedInstance is an instance found in containerd with a task, in state state.
type adoptedInstance struct {
	inst  *instance
	state observe.TaskState
}

// adoptPlan is what resume does once the pod is bound: observe.Bind's plan, as the worker's
// containers and the exits it follows.
type adoptPlan struct {
	*observe.Plan
	cur           map[*Container]adoptedInstance  // the current instances with a task
	restartNoPrev map[*Container]*StateTerminated // to restart from (observe.Binding.Restart)
	pauseExited   <-chan ctrd.ExitStatus
}

// bind sets the pod's state from what its adopter observed (o), as observe.Bind plans it; it
// starts nothing. Its only calls to containerd delete the instances of restarts cut before
// their task existed and subscribe to the exits of the tasks found.
func (p *Worker) bind(ctx context.Context, o *observe.Pod) (*adoptPlan, error) {
	if o.LastErr != nil {
		p.log.Warn("status.json unreadable", "err", o.LastErr)
	}
	var members []observe.Member
	for _, c := range append(append([]*Container{}, p.inits...), p.apps...) {
		members = append(members, observe.MemberOf(c.spec.Name, c.init, c.sidecar))
	}
	pl := observe.Bind(o, members, p.spec.HostNetwork, p.pause != nil, time.Now())
	// Before the pod's loop runs: its state is set directly, as in New.
	p.podIP, p.netAttached = pl.PodIP, pl.NetAttached
	plan := &adoptPlan{Plan: pl, cur: map[*Container]adoptedInstance{}, restartNoPrev: map[*Container]*StateTerminated{}}
	if pa := o.Pause; pa != nil {
		if p.pause == nil {
			p.log.Warn("a pause container in a pod without ShareProcessNamespace", "id", pa.ID)
			p.pause = &pause{}
		}
		p.pause.id, p.pause.ctr, p.pause.task = pa.ID, pa.Ctr, pa.Task
		p.shim.SetPause(pa.ID)
		if pa.Task != nil && pa.State == observe.TaskRunning {
			var err error
			if plan.pauseExited, err = pa.Task.Wait(p.watchCtx); err != nil {
				return nil, fmt.Errorf("wait pause: %w", err)
			}
		}
	}
	p.sandbox.Restore(&p.spec, o.NSPaths, o.PIDNS, p.pause != nil) // the namespaces the previous manager pinned
	for _, e := range pl.Ephemerals {
		p.ephemerals = append(p.ephemerals, &Container{pod: p, spec: &ContainerSpec{Name: e.Name, Image: e.Image}, ephemeral: true, prepared: make(chan struct{})})
	}
	all := append(append(append([]*Container{}, p.inits...), p.apps...), p.ephemerals...)
	for i, c := range all {
		b := pl.Containers[i]
		close(c.prepared)
		if !c.ephemeral {
			p.bindImage(c, o.Images[c.spec.Name])
		}
		if c.stopSignal == 0 {
			c.stopSignal = b.StopSignal
		}
		for _, f := range b.Cut {
			if err := p.foundInstance(f).deleteContainer(p.host.Ctx(ctx)); err != nil {
				return nil, err
			}
		}
		c.st.State, c.st.LastState, c.st.RestartCount = b.State, b.LastState, b.RestartCount
		for _, f := range b.Live {
			c.live = append(c.live, p.foundInstance(f))
		}
		if b.Restart != nil {
			plan.restartNoPrev[c] = b.Restart
		}
		if b.Cur < 0 {
			continue
		}
		cur := c.live[b.Cur]
		c.cur = cur
		if b.Started {
			cur.running, cur.startedAt = true, b.StartedAt
		}
		if b.Follow {
			var err error
			if cur.exitCh, err = cur.task.Wait(p.watchCtx); err != nil {
				return nil, fmt.Errorf("container %q: wait task: %w", c.spec.Name, err)
			}
			plan.cur[c] = adoptedInstance{inst: cur, state: b.Task}
		}
	}
	return plan, nil
}

// foundInstance is the instance of f, a containerd container of the pod found by its adopter.
func (p *Worker) foundInstance(f observe.Instance) *instance {
	return &instance{host: p.host, attempt: f.Attempt, id: f.ID, task: f.Task, ctr: f.Ctr, cg: f.Ctr, exited: make(chan struct{}),
		logPath:  filepath.Join(p.sandbox.Dir(), "logs", f.Name, strconv.Itoa(f.Attempt)+".log"),
		termPath: filepath.Join(p.sandbox.Dir(), terminationDir, f.ID)}
}

// bindImage binds c to the image the pod ran with, found locally, for its restarts (no pull,
// whatever the policy: the previous manager resolved it once too).
func (p *Worker) bindImage(c *Container, img observe.Image) {
	if img.Err != nil || !img.Found {
		p.log.Warn("the container's image is not present: its restarts will fail", "container", c.spec.Name, "err", img.Err)
		return
	}
	err := img.ConfigErr
	if err == nil {
		err = c.useImage(img.Image, img.Config)
	}
	if err != nil {
		p.log.Warn("the container's image config is unusable", "container", c.spec.Name, "err", err)
	}
	c.st.ImageID = img.Image.ID
}
