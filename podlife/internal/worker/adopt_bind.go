package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"fmt"
	"net/netip"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/worker/observe"
	"github.com/podlife/podlife/podlife/internal/worker/podsandbox"
)

// taskState is what an adopter found of an instance's task (see observe.TaskState).
type taskState = observe.TaskState

const (
	taskNone    = observe.TaskNone
	taskCreated = observe.TaskCreated
	taskRunning = observe.TaskRunning
	taskStopped = observe.TaskStopped
)

// adoptedInstance is an instance found in containerd.
type adoptedInstance struct {
	inst   *instance
	state  taskState
	labels map[string]string // its container's
}

// adoptPlan is what resume does once the pod is bound.
type adoptPlan struct {
	stopped     bool   // every task is gone: the pod was stopped
	interrupted string // why the start sequence cannot be resumed ("" if it finished)
	// per container (by pointer): its current instance and what was found of its task
	cur map[*Container]adoptedInstance
	// restartNoPrev: containers whose restart was cut before its task existed, and no
	// earlier instance is left: restart them from their last recorded state.
	restartNoPrev map[*Container]*StateTerminated
	pauseExited   <-chan ctrd.ExitStatus
}

// bind sets the pod's state from what its adopter observed (o); it starts nothing. Its only
// calls to containerd delete the instances of restarts cut before their task existed and
// subscribe to the exits of the tasks found.
func (p *Worker) bind(ctx context.Context, o *observe.Pod) (*adoptPlan, error) {
	r := p.host
	cctx := r.Ctx(ctx)
	s := p.sandbox
	last := o.Last
	if o.LastErr != nil {
		p.log.Warn("status.json unreadable", "err", o.LastErr)
	}
	sb := o.Sandbox
	if ip, err := netip.ParseAddr(sb.IP); err == nil {
		p.podIP = ip
	}
	p.netAttached = sb.Network != ""
	plan := &adoptPlan{cur: map[*Container]adoptedInstance{}, restartNoPrev: map[*Container]*StateTerminated{}}
	if !p.spec.HostNetwork && sb.Network != "attached" {
		plan.interrupted = "the pod's network was not attached"
	}

	if pa := o.Pause; pa != nil {
		if p.pause == nil {
			p.log.Warn("a pause container in a pod without ShareProcessNamespace", "id", pa.ID)
			p.pause = &pause{}
		}
		p.pause.id = pa.ID
		p.shim.SetPause(pa.ID)
		p.pause.ctr = pa.Ctr
		if pa.Task != nil {
			p.pause.task = pa.Task
			if pa.State == taskRunning {
				var err error
				if plan.pauseExited, err = pa.Task.Wait(p.watchCtx); err != nil {
					return nil, fmt.Errorf("wait pause: %w", err)
				}
			}
		}
	}
	found := map[string][]adoptedInstance{}
	ephemeralImages := map[string]string{}
	for name, seen := range o.Containers {
		for _, f := range seen {
			if f.Labels[podsandbox.LabelKind] == observe.KindEphemeral {
				ephemeralImages[name] = f.Image
			}
			inst := &instance{host: r, attempt: f.Attempt, id: f.ID, task: f.Task, exited: make(chan struct{})}
			inst.ctr, inst.cg = f.Ctr, f.Ctr
			inst.logPath = filepath.Join(s.Dir(), "logs", name, strconv.Itoa(f.Attempt)+".log")
			inst.termPath = filepath.Join(s.Dir(), terminationDir, f.ID)
			found[name] = append(found[name], adoptedInstance{inst: inst, state: f.State, labels: f.Labels})
		}
	}
	s.Restore(&p.spec, o.NSPaths, o.PIDNS, p.pause != nil) // the namespaces the previous manager pinned
	if p.pause != nil {
		if p.pause.task == nil && o.AnyTask {
			plan.interrupted = "the pod's pause is missing"
		}
	}
	plan.stopped = !o.AnyTask
	byStatus := map[string]ContainerStatus{}
	for _, cs := range append(append(append([]ContainerStatus{}, last.InitContainerStatuses...), last.ContainerStatuses...), last.EphemeralContainerStatuses...) {
		byStatus[cs.Name] = cs
	}

	// Ephemeral containers: never restarted, followed until they exit, removed with the pod.
	for name := range found {
		if _, ok := p.byName[name]; ok || CheckName("container", name) != nil {
			continue
		}
		c := &Container{pod: p, spec: &ContainerSpec{Name: name, Image: ephemeralImages[name]}, ephemeral: true, prepared: make(chan struct{})}
		p.ephemerals = append(p.ephemerals, c)
	}
	sort.Slice(p.ephemerals, func(i, j int) bool { return p.ephemerals[i].spec.Name < p.ephemerals[j].spec.Name })

	all := append(append(append([]*Container{}, p.inits...), p.apps...), p.ephemerals...)
	for _, c := range all {
		close(c.prepared)
		if !c.ephemeral {
			// For the container's restarts: the image the pod ran with is local (no pull, whatever
			// the policy: the previous manager resolved it once too).
			img := o.Images[c.spec.Name]
			switch {
			case img.Err != nil || !img.Found:
				p.log.Warn("the container's image is not present: its restarts will fail", "container", c.spec.Name, "err", img.Err)
			default:
				// Before the pod's loop runs: its state is set directly, as in New.
				err := img.ConfigErr
				if err == nil {
					err = c.useImage(img.Image, img.Config)
				}
				if err != nil {
					p.log.Warn("the container's image config is unusable", "container", c.spec.Name, "err", err)
				}
				c.imageID = img.Image.ID
			}
		}
		insts := found[c.spec.Name]
		st := byStatus[c.spec.Name]
		if c.stopSignal == 0 {
			c.stopSignal = stopSignalOf(insts)
		}
		c.lastState = st.LastState
		if plan.stopped {
			c.state, c.restartCount = st.State, st.RestartCount
			for _, a := range insts {
				c.live = append(c.live, a.inst)
			}
			if len(insts) > 0 {
				c.cur = insts[len(insts)-1].inst
			}
			continue
		}
		kind := "app"
		switch {
		case c.ephemeral:
			kind = "ephemeral"
		case c.sidecar:
			kind = "sidecar"
		case c.init:
			kind = "init"
		}
		fi := make([]observe.Seen, len(insts))
		for i, a := range insts {
			fi[i] = observe.Seen{Attempt: a.inst.attempt, State: a.state}
		}
		d := observe.Decide(c.spec.Name, kind, fi, st)
		for _, a := range insts[len(insts)-d.Cut:] {
			if err := a.inst.deleteContainer(cctx); err != nil {
				return nil, err
			}
		}
		insts = insts[:len(insts)-d.Cut]
		for _, a := range insts {
			c.live = append(c.live, a.inst)
		}
		c.state = ContainerState{Waiting: &StateWaiting{Reason: ReasonContainerCreating}}
		switch d.Action {
		case observe.Interrupted:
			plan.interrupted = d.Why
		case observe.Completed:
			c.state = st.State
		case observe.Restart:
			c.restartCount = fi[len(fi)-1].Attempt - 1
			term := st.State.Terminated
			if term == nil {
				term = st.LastState.Terminated
			}
			if term == nil {
				term = &StateTerminated{ExitCode: -1, Reason: ReasonContainerStatusUnknown, FinishedAt: time.Now()}
			}
			plan.restartNoPrev[c] = term
		}
		if d.Cur < 0 {
			continue
		}
		cur := insts[d.Cur]
		c.cur = cur.inst
		c.restartCount = cur.inst.attempt
		if d.Action == observe.Follow || d.Action == observe.Exited {
			started := time.Now()
			if st.ContainerID == "containerd://"+cur.inst.id {
				switch {
				case st.State.Running != nil:
					started = st.State.Running.StartedAt
				case st.State.Terminated != nil:
					started = st.State.Terminated.StartedAt
				}
			}
			cur.inst.running, cur.inst.startedAt = true, started
			c.state = ContainerState{Running: &StateRunning{StartedAt: started}}
		}
		if cur.state != taskNone {
			var err error
			if cur.inst.exitCh, err = cur.inst.task.Wait(p.watchCtx); err != nil {
				return nil, fmt.Errorf("container %q: wait task: %w", c.spec.Name, err)
			}
		}
		plan.cur[c] = cur
	}
	return plan, nil
}

// stopSignalOf reads the stop signal the previous manager recorded on the newest instance.
func stopSignalOf(insts []adoptedInstance) (sig syscall.Signal) {
	sig = syscall.SIGTERM
	for _, a := range insts {
		if n, err := strconv.Atoi(a.labels[podsandbox.LabelStopSignal]); err == nil && n > 0 {
			sig = syscall.Signal(n)
		}
	}
	return sig
}
