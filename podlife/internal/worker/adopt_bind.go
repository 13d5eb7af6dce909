package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/containerd/errdefs"

	"github.com/podlife/podlife/podlife/internal/cgroupfs"
	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/poddir"
	"github.com/podlife/podlife/podlife/internal/sandbox"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/record"
)

// taskState is what an adopter finds of an instance's task.
type taskState int

const (
	taskNone    taskState = iota // no task: never made, or deleted
	taskCreated                  // made, its process not started
	taskRunning                  // its process runs (or is paused)
	taskStopped                  // its process exited
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

// bind finds what runs of the pod and sets its state from it; it starts nothing.
func (p *Worker) bind(ctx context.Context) (*adoptPlan, error) {
	r := p.rt
	cctx := r.Ctx(ctx)
	s := p.sandbox
	var last PodStatus
	if err := poddir.ReadJSON(filepath.Join(s.Dir(), record.StatusFile), &last); err != nil && !errors.Is(err, fs.ErrNotExist) {
		p.log.Warn("status.json unreadable", "err", err)
	}
	var sb sandbox.Record
	if err := poddir.ReadJSON(filepath.Join(s.Dir(), "sandbox.json"), &sb); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("sandbox.json: %w", err)
	}
	if ip, err := netip.ParseAddr(sb.IP); err == nil {
		p.podIP = ip
	}
	p.netAttached = sb.Network != ""
	plan := &adoptPlan{cur: map[*Container]adoptedInstance{}, restartNoPrev: map[*Container]*StateTerminated{}}
	if !p.spec.HostNetwork && sb.Network != "attached" {
		plan.interrupted = "the pod's network was not attached"
	}

	ctrs, err := r.Tasks.Containers(cctx, map[string]string{LabelPodUID: p.uid})
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	found := map[string][]adoptedInstance{}
	ephemeralImages := map[string]string{}
	anyTask := false
	for _, ctr := range ctrs {
		labels := ctr.Labels
		cgroup := p.containerCgroup(ctr.ID)
		if labels[LabelKind] == LabelKindPause || labels[LabelKind] == "ephemeral" {
			cgroup = cgroupfs.Path(r.Cfg.Namespace, ctr.ID)
		}
		cg := ctr.Handle(cgroup)
		task, state, err := loadTaskState(cctx, cg)
		if err != nil {
			return nil, fmt.Errorf("container %s: %w", ctr.ID, err)
		}
		anyTask = anyTask || state != taskNone
		if labels[LabelKind] == LabelKindPause {
			if p.pause == nil {
				p.log.Warn("a pause container in a pod without ShareProcessNamespace", "id", ctr.ID)
				p.pause = &pause{}
			}
			p.pause.id = ctr.ID
			p.shim.SetPause(ctr.ID)
			p.pause.ctr = cg
			if task != nil {
				p.pause.task = task
				if state == taskRunning {
					if plan.pauseExited, err = task.Wait(p.watchCtx); err != nil {
						return nil, fmt.Errorf("wait pause: %w", err)
					}
				}
			}
			continue
		}
		if labels[LabelKind] == "ephemeral" {
			ephemeralImages[labels[LabelContainer]] = ctr.Image
		}
		attempt, _ := strconv.Atoi(labels[LabelAttempt])
		name := labels[LabelContainer]
		inst := &instance{rt: r, attempt: attempt, id: ctr.ID, task: task, exited: make(chan struct{})}
		inst.ctr, inst.cg = cg, cg
		inst.logPath = filepath.Join(s.Dir(), "logs", name, strconv.Itoa(attempt)+".log")
		inst.termPath = filepath.Join(s.Dir(), terminationDir, ctr.ID)
		found[name] = append(found[name], adoptedInstance{inst: inst, state: state, labels: labels})
	}
	s.Restore(&p.spec, p.pause != nil) // the namespaces the previous manager pinned
	if p.pause != nil {
		if p.pause.task == nil && anyTask {
			plan.interrupted = "the pod's pause is missing"
		}
	}
	plan.stopped = !anyTask
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
			ref, err := NormalizeRef(c.spec.Image)
			var img tasks.Image
			found := false
			if err == nil {
				img, found, err = r.Tasks.LocalImage(cctx, ref)
			}
			switch {
			case err != nil || !found:
				p.log.Warn("the container's image is not present: its restarts will fail", "container", c.spec.Name, "err", err)
			default:
				// Before the pod's loop runs: its state is set directly, as in New.
				if err := c.loadImage(cctx, img); err != nil {
					p.log.Warn("the container's image config is unusable", "container", c.spec.Name, "err", err)
				}
				c.imageID = img.ID
			}
		}
		insts := found[c.spec.Name]
		sort.Slice(insts, func(i, j int) bool { return insts[i].inst.attempt < insts[j].inst.attempt })
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
		fi := make([]foundInstance, len(insts))
		for i, a := range insts {
			fi[i] = foundInstance{attempt: a.inst.attempt, state: a.state}
		}
		d := decideContainer(c.spec.Name, kind, fi, st)
		for _, a := range insts[len(insts)-d.cut:] {
			if err := a.inst.deleteContainer(cctx); err != nil {
				return nil, err
			}
		}
		insts = insts[:len(insts)-d.cut]
		for _, a := range insts {
			c.live = append(c.live, a.inst)
		}
		c.state = ContainerState{Waiting: &StateWaiting{Reason: ReasonContainerCreating}}
		switch d.action {
		case actInterrupted:
			plan.interrupted = d.why
		case actCompleted:
			c.state = st.State
		case actRestart:
			c.restartCount = fi[len(fi)-1].attempt - 1
			term := st.State.Terminated
			if term == nil {
				term = st.LastState.Terminated
			}
			if term == nil {
				term = &StateTerminated{ExitCode: -1, Reason: ReasonContainerStatusUnknown, FinishedAt: time.Now()}
			}
			plan.restartNoPrev[c] = term
		}
		if d.cur < 0 {
			continue
		}
		cur := insts[d.cur]
		c.cur = cur.inst
		c.restartCount = cur.inst.attempt
		if d.action == actFollow || d.action == actExited {
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
			if cur.inst.exitCh, err = cur.inst.task.Wait(p.watchCtx); err != nil {
				return nil, fmt.Errorf("container %q: wait task: %w", c.spec.Name, err)
			}
		}
		plan.cur[c] = cur
	}
	return plan, nil
}

// loadTaskState loads ctr's task, if any, and tells its state.
func loadTaskState(ctx context.Context, ctr tasks.Container) (tasks.Task, taskState, error) {
	task, err := ctr.LoadTask(ctx)
	if errdefs.IsNotFound(err) {
		return nil, taskNone, nil
	}
	if err != nil {
		return nil, taskNone, err
	}
	st, err := task.Status(ctx)
	if err != nil {
		return nil, taskNone, err
	}
	switch st.Status {
	case ctrd.Created:
		return task, taskCreated, nil
	case ctrd.Running, ctrd.Paused, ctrd.Pausing:
		return task, taskRunning, nil
	}
	return task, taskStopped, nil
}

// stopSignalOf reads the stop signal the previous manager recorded on the newest instance.
func stopSignalOf(insts []adoptedInstance) (sig syscall.Signal) {
	sig = syscall.SIGTERM
	for _, a := range insts {
		if n, err := strconv.Atoi(a.labels[labelStopSignal]); err == nil && n > 0 {
			sig = syscall.Signal(n)
		}
	}
	return sig
}
