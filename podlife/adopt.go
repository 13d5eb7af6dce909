package podlife

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/errdefs"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/internal/sandboxns"
)

// Adopt takes over the supervision of a pod that another process started and that no live
// process manages any more (its manager crashed, was killed or closed its Runtime): see
// PodRecord.Managed. The caller gives the pod's spec again (its Go hooks and probers cannot be
// persisted); it must be the spec the pod was started with, or Adopt fails with a
// *SpecChangedError naming what differs (errors.Is(err, ErrSpecChanged)). A pod with a live
// manager, or that another process is adopting, is refused with a *ManagedError
// (errors.Is(err, ErrManaged)); a pod that does not exist with an error wrapping ErrNotFound.
//
// Adoption re-binds the spec to what runs: the sandbox (pinned namespaces, network attachment,
// pod cgroup, pause), each container's current instance; and resumes the supervision: exit
// watching, probes (a startup probe that had succeeded is not run again), the restart policy
// with the restart counts and crash-loop back-off the previous manager persisted, stop with
// preStop hooks, events, status.json, the control socket (this process becomes the pod's
// manager). Containers still running are never restarted by adoption. A container that exited
// while no manager ran is recorded with its real exit code and time and handled by the restart
// policy (its restart count goes up once). A postStart hook that the previous manager's death
// interrupted is reported as a failed postStart (FailedPostStartHook; the container is killed and
// restarted per policy). A pod whose start sequence was interrupted (a container not created
// or not started yet) is not resumed: it is stopped, Failed with reason StartInterrupted, and
// left for Remove. A pod that was stopped is adopted stopped, for Remove; one whose stop had
// begun has its stop finished, with what is left of its grace period.
//
// The adopter holds the pod's adoption lock until the pod is removed or the Runtime closed.
func (r *Runtime) Adopt(ctx context.Context, spec PodSpec) (*Pod, error) {
	w, err := r.adopt(ctx, spec)
	return w.handle(), err
}

// adopt is Adopt, returning the adopted pod's worker.
func (r *Runtime) adopt(ctx context.Context, spec PodSpec) (*podWorker, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if err := r.cfg.admitSecurity(&spec); err != nil {
		return nil, err
	}
	handler, err := r.cfg.runtimeFor(&spec, &r.specVersions)
	if err != nil {
		return nil, err
	}
	spec = spec.withPodDefaults()
	if _, err := r.worker(spec.Name); err == nil {
		return nil, &ManagedError{Pod: spec.Name, PID: os.Getpid()}
	}
	if r.isClosed() {
		return nil, ErrClosed
	}
	dir := filepath.Join(r.cfg.StateDir, "pods", spec.Name)
	var rec podRecord
	if err := readFileJSON(filepath.Join(dir, recordFile), &rec); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("pod %q: %w", spec.Name, ErrNotFound)
		}
		return nil, fmt.Errorf("pod %q: %w", spec.Name, err)
	}
	// Checked before the lock too, so that a live manager is named whoever holds the lock.
	if err := r.checkAdoptable(spec, rec); err != nil {
		return nil, err
	}
	lock, err := lockPod(dir)
	if errors.Is(err, errLocked) {
		return nil, &ManagedError{Pod: spec.Name, Adopting: true}
	}
	if err != nil {
		return nil, fmt.Errorf("pod %q: %w", spec.Name, err)
	}
	p, err := r.adoptLocked(ctx, spec, handler, dir, rec, lock, false)
	if err != nil {
		_ = lock.Close()
		return nil, err
	}
	return p, nil
}

// adoptLocked adopts the pod in dir under its lock. forStop adopts it only to stop or remove it
// (see stopUnmanaged): the spec is the record's, and nothing is resumed but exit watching.
func (r *Runtime) adoptLocked(ctx context.Context, spec PodSpec, handler ctrRuntime, dir string, rec podRecord, lock *os.File, forStop bool) (*podWorker, error) {
	// Read again under the lock: an adopter that just released it may have rewritten it.
	if err := readFileJSON(filepath.Join(dir, recordFile), &rec); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("pod %q: %w", spec.Name, ErrNotFound)
		}
		return nil, fmt.Errorf("pod %q: %w", spec.Name, err)
	}
	switch {
	case forStop && r.managerAlive(rec):
		return nil, &ManagedError{Pod: spec.Name, PID: rec.OwnerPID}
	case !forStop:
		if err := r.checkAdoptable(spec, rec); err != nil {
			return nil, err
		}
	}
	if rec.SpecHash == "" && rec.SpecMAC == "" {
		r.log.Warn("the pod's record has no spec fingerprint (an older manager): adopting it unchecked", "pod", spec.Name)
	}
	if err := r.waitConnected(ctx); err != nil {
		return nil, fmt.Errorf("pod %q: %w", spec.Name, err)
	}
	p := assemblePod(r, spec, handler, dir, rec.UID)
	p.startTime = rec.Created
	p.adoptLock = lock
	if forStop {
		p.stopRecord = &rec
	}
	if rec.ShimGroup != "" && p.pause == nil {
		p.shimOwner.plannedID = rec.ShimGroup
	}
	if err := p.sup.load(); err != nil {
		p.log.Warn("supervision state unreadable: restart back-off and hook state start afresh", "err", err)
	}
	plan, err := p.bind(ctx)
	if err != nil {
		return nil, fmt.Errorf("pod %q: adopt: %w", spec.Name, err)
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, ErrClosed
	}
	if _, ok := r.pods[spec.Name]; ok || r.reserved[spec.Name] {
		r.mu.Unlock()
		return nil, &ManagedError{Pod: spec.Name, PID: os.Getpid()}
	}
	r.pods[spec.Name] = p
	r.mu.Unlock()
	r.control.listen()
	p.resume(plan, rec.OwnerPID, forStop)
	return p, nil
}

// Event reasons of adoption.
const (
	// ReasonAdopted: a process took over the pod's supervision (Runtime.Adopt).
	ReasonAdopted Reason = "Adopted"
	// ReasonStartInterrupted: the adopted pod's start sequence had not finished when its
	// manager died; it is stopped and left for Remove.
	ReasonStartInterrupted Reason = "StartInterrupted"
	// ReasonLogsNotFollowed: the adopted pod's containers wrote their output to the previous
	// manager (no Config.ContainerLogger): nothing logs their current attempts.
	ReasonLogsNotFollowed Reason = "LogsNotFollowed"
)

// checkAdoptable refuses a changed spec (first: replacing the pod is the way then, whoever
// manages it) and a pod with a live manager.
func (r *Runtime) checkAdoptable(spec PodSpec, rec podRecord) error {
	if err := r.checkSpec(spec, rec); err != nil {
		return err
	}
	if r.managerAlive(rec) {
		return &ManagedError{Pod: spec.Name, PID: rec.OwnerPID}
	}
	return nil
}

// managerAlive reports whether the process that wrote rec still manages the pod: its control
// socket answers (or, for a manager without one, its process lives). This Runtime's own socket
// names a pod it no longer has (callers checked): its Remove failed half-way, or it stopped the
// pod for another process (see stopUnmanaged).
func (r *Runtime) managerAlive(rec podRecord) bool {
	if rec.Control != "" {
		return rec.Control != r.control.path() && answers(rec.Control)
	}
	return rec.OwnerPID != os.Getpid() && processAlive(rec.OwnerPID)
}

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
	inst  *instance
	state taskState
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
	pauseExited   <-chan client.ExitStatus
}

// bind finds what runs of the pod and sets its state from it; it starts nothing.
func (p *podWorker) bind(ctx context.Context) (*adoptPlan, error) {
	r := p.rt
	cctx := r.ctx(ctx)
	s := p.sandbox
	var last PodStatus
	if err := readFileJSON(filepath.Join(s.dir, statusFile), &last); err != nil && !errors.Is(err, fs.ErrNotExist) {
		p.log.Warn("status.json unreadable", "err", err)
	}
	var sb sandboxRecord
	if err := readFileJSON(filepath.Join(s.dir, "sandbox.json"), &sb); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("sandbox.json: %w", err)
	}
	s.nsPaths = map[sandboxns.Kind]string{}
	for _, k := range []sandboxns.Kind{sandboxns.Net, sandboxns.IPC, sandboxns.UTS} {
		if path := filepath.Join(s.dir, "ns", string(k)); fileExists(path) {
			s.nsPaths[k] = path
		}
	}
	if p.spec.HostNetwork {
		s.hostname, _ = os.Hostname()
	}
	if ip, err := netip.ParseAddr(sb.IP); err == nil {
		s.ip = ip
	}
	s.attached = sb.Network != ""
	plan := &adoptPlan{cur: map[*Container]adoptedInstance{}, restartNoPrev: map[*Container]*StateTerminated{}}
	if !p.spec.HostNetwork && sb.Network != "attached" {
		plan.interrupted = "the pod's network was not attached"
	}

	ctrs, err := r.client.Containers(cctx, labelFilter(labelPodUID, p.uid))
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	found := map[string][]adoptedInstance{}
	ephemeralImages := map[string]string{}
	anyTask := false
	for _, ctr := range ctrs {
		labels, err := ctr.Labels(cctx)
		if err != nil {
			return nil, fmt.Errorf("container %s: %w", ctr.ID(), err)
		}
		task, state, err := loadTaskState(cctx, ctr)
		if err != nil {
			return nil, fmt.Errorf("container %s: %w", ctr.ID(), err)
		}
		anyTask = anyTask || state != taskNone
		if labels[labelKind] == labelKindPause {
			if p.pause == nil {
				p.log.Warn("a pause container in a pod without ShareProcessNamespace", "id", ctr.ID())
				p.pause = &pause{}
			}
			p.pause.id = ctr.ID()
			p.pause.ctr = ctrdContainer{ctr: ctr, cgroup: cgroupPath(r.cfg.Namespace, ctr.ID())}
			if task != nil {
				p.pause.task = task
				if state == taskRunning {
					if plan.pauseExited, err = task.wait(p.watchCtx); err != nil {
						return nil, fmt.Errorf("wait pause: %w", err)
					}
				}
			}
			continue
		}
		attempt, _ := strconv.Atoi(labels[labelAttempt])
		name := labels[LabelContainer]
		inst := &instance{rt: r, attempt: attempt, id: ctr.ID(), task: task, exited: make(chan struct{})}
		cg := ctrdContainer{ctr: ctr, cgroup: p.containerCgroup(ctr.ID())}
		if labels[labelKind] == "ephemeral" {
			cg.cgroup = cgroupPath(r.cfg.Namespace, ctr.ID())
			if info, err := ctr.Info(cctx); err == nil {
				ephemeralImages[name] = info.Image
			}
		}
		inst.ctr, inst.cg = cg, cg
		inst.logPath = filepath.Join(s.dir, "logs", name, strconv.Itoa(attempt)+".log")
		inst.termPath = filepath.Join(s.dir, terminationDir, ctr.ID())
		found[name] = append(found[name], adoptedInstance{inst: inst, state: state})
	}
	if p.pause != nil {
		if pidNS := filepath.Join(s.dir, "ns", string(sandboxns.PID)); fileExists(pidNS) {
			s.pidNS = pidNS
		}
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
		if _, ok := p.byName[name]; ok || checkName("container", name) != nil {
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
			ref, err := normalizeRef(c.spec.Image)
			var img podImage
			found := false
			if err == nil {
				img, found, err = r.tasks.localImage(cctx, ref)
			}
			switch {
			case err != nil || !found:
				p.log.Warn("the container's image is not present: its restarts will fail", "container", c.spec.Name, "err", err)
			default:
				// Before the pod's loop runs: its state is set directly, as in newPod.
				if err := c.loadImage(cctx, img); err != nil {
					p.log.Warn("the container's image config is unusable", "container", c.spec.Name, "err", err)
				}
				c.imageID = img.id
			}
		}
		insts := found[c.spec.Name]
		sort.Slice(insts, func(i, j int) bool { return insts[i].inst.attempt < insts[j].inst.attempt })
		st := byStatus[c.spec.Name]
		if c.stopSignal == 0 {
			c.stopSignal = stopSignalOf(cctx, r, insts)
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
			if cur.inst.exitCh, err = cur.inst.task.wait(p.watchCtx); err != nil {
				return nil, fmt.Errorf("container %q: wait task: %w", c.spec.Name, err)
			}
		}
		plan.cur[c] = cur
	}
	return plan, nil
}

// loadTaskState loads ctr's task, if any, and tells its state.
func loadTaskState(ctx context.Context, ctr client.Container) (taskHandle, taskState, error) {
	task, err := ctr.Task(ctx, nil)
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
	h := ctrdTask{task: task}
	switch st.Status {
	case client.Created:
		return h, taskCreated, nil
	case client.Running, client.Paused, client.Pausing:
		return h, taskRunning, nil
	}
	return h, taskStopped, nil
}

// stopSignalOf reads the stop signal the previous manager recorded on the newest instance.
func stopSignalOf(ctx context.Context, r *Runtime, insts []adoptedInstance) (sig syscall.Signal) {
	sig = syscall.SIGTERM
	for _, a := range insts {
		if c, ok := a.inst.cg.(ctrdContainer); ok {
			if labels, err := c.ctr.Labels(ctx); err == nil {
				if n, err := strconv.Atoi(labels[labelStopSignal]); err == nil && n > 0 {
					sig = syscall.Signal(n)
				}
			}
		}
	}
	return sig
}

// errPostStartInterrupted is the postStart failure of a hook that its manager's death cut.
var errPostStartInterrupted = errors.New("the hook was interrupted: the process that ran it (the pod's previous manager) died before it returned")

// resume starts the supervision of a bound pod: status writer, record, watchers, probes, the
// restarts and hook failures due, or the stop of a pod whose start was interrupted.
func (p *podWorker) resume(plan *adoptPlan, previous int, forStop bool) {
	close(p.netReady)
	close(p.seqDone)
	close(p.started)
	p.shimReadyOnce.Do(func() { close(p.shimReady) })
	// Bound before the loop runs (as newPod builds a pod): the state is set here, then the
	// loop owns it.
	p.sandboxReady = !plan.stopped && plan.interrupted == ""
	// A stop the previous manager began is finished, never undone (see stopIntent).
	intent := p.sup.stopIntent()
	finishStop := intent != nil && !plan.stopped && !forStop
	if plan.stopped || forStop || finishStop {
		p.stopping = true // no restart, no probe, no hook: the stop follows
	}
	if plan.interrupted != "" && !plan.stopped && !forStop && !finishStop {
		p.failReason = ReasonStartInterrupted
		p.reason = ReasonStartInterrupted
		p.message = "The pod's start sequence was interrupted by its previous manager's death (" + plan.interrupted + "): it is not resumed; remove the pod"
	}
	p.publish()
	go p.runLoop()
	if err := p.writeRecord(); err != nil {
		p.log.Warn("pod record not written: other processes will not see this manager", "err", err)
	}
	go p.persistStatus(p.persistQuit)
	why := ""
	switch {
	case forStop:
		why = ", to stop it"
	case intent != nil:
		why = ", to finish the stop it began"
	}
	p.emit("", EventNormal, ReasonAdopted, fmt.Sprintf("Pod adopted by pid %d%s (its previous manager, pid %d, is gone)", os.Getpid(), why, previous))
	if plan.stopped {
		// No task is left: the pod was stopped, or its start never got to its tasks. The stop
		// runs again (or for the first time) to finish the teardown: network, namespaces, pause.
		if !forStop {
			go p.stopWith(p.lifeCtx, 0, false, nil)
		}
		return
	}
	if forStop || finishStop {
		if plan.pauseExited != nil {
			go p.watchPause(plan.pauseExited)
		}
		for c, a := range plan.cur {
			if a.state == taskRunning || a.state == taskStopped {
				go c.watchExit(a.inst)
			}
		}
		if finishStop {
			left := intent.remaining(p.rt.clock.Now())
			go p.stopWith(p.lifeCtx, left, intent.Hooks && left > 0, nil)
		}
		return
	}
	if p.rt.cfg.ContainerLogger == "" {
		p.emit("", EventWarning, ReasonLogsNotFollowed, "The containers' output went through the previous manager, which is gone: their current attempts' output is not logged (set Config.ContainerLogger)")
	}
	if d := p.spec.ActiveDeadline; d != nil {
		go p.enforceDeadline(*d)
	}
	if plan.pauseExited != nil {
		go p.watchPause(plan.pauseExited)
	}
	for _, c := range append(append([]*Container{}, p.inits...), p.apps...) {
		if sup := p.sup.get(c.spec.Name); sup.BackoffDelay > 0 {
			p.rt.backoff.Restore(c.backoffKey(), sup.BackoffDelay, sup.BackoffUpdated)
		}
	}
	for c, a := range plan.cur {
		if a.state == taskNone {
			continue
		}
		inst := a.inst
		sup := p.sup.get(c.spec.Name)
		switch a.state {
		case taskRunning, taskStopped:
			interrupted := sup.PostStart == inst.id && c.spec.PostStart != nil
			if interrupted && a.state == taskStopped {
				// Before its exit is recorded: its restart then shows the hook's failure.
				c.persistSupervision(func(s *containerSupervision) { s.PostStart = "" })
				c.markPostStartFailed(errPostStartInterrupted)
			}
			go c.watchExit(inst)
			switch {
			case interrupted && a.state == taskRunning:
				c.persistSupervision(func(s *containerSupervision) { s.PostStart = "" })
				go func() { _ = c.postStartFailed(inst, errPostStartInterrupted) }()
			case a.state == taskRunning && plan.interrupted == "":
				c.startProbesFrom(inst, c.spec.StartupProbe == nil || sup.Started == inst.id)
			}
		case taskCreated:
			if inst.attempt > 0 && plan.interrupted == "" {
				// A restart cut between its create and its start: the start follows.
				if !p.registerRestart() {
					continue
				}
				go func() {
					defer p.restarts.Done()
					if err := c.startInstance(p.startCtx, inst); err != nil && p.startCtx.Err() == nil {
						p.log.Info("restart failed", "container", c.spec.Name, "err", err)
					}
				}()
			}
		}
	}
	if plan.interrupted == "" {
		for c, term := range plan.restartNoPrev {
			if !p.registerRestart() {
				continue
			}
			go func() {
				defer p.restarts.Done()
				c.restart(p.startCtx, nil, term)
			}()
		}
		return
	}
	p.emit("", EventWarning, ReasonStartInterrupted, p.message)
	go p.stopWith(p.lifeCtx, p.spec.gracePeriod(), true, nil)
}

// markPostStartFailed records the failure of a postStart hook whose container has exited
// already: its restart (if any) shows it as a postStart failure would.
func (c *Container) markPostStartFailed(hookErr error) {
	p := c.pod
	msg := fmt.Sprintf("%s lifecycle hook for Container %q in Pod %q failed - error: %v", hook.Describe(c.spec.PostStart), c.spec.Name, p.name, hookErr)
	p.do(func() { c.hookFailed = msg })
	p.emit(c.spec.Name, EventWarning, ReasonFailedPostStartHook, "PostStartHook failed")
}

// releaseAdoptLock drops the pod's adoption lock, if this process adopted it.
func (p *podWorker) releaseAdoptLock() {
	p.adoptMu.Lock()
	l := p.adoptLock
	p.adoptLock = nil
	p.adoptMu.Unlock()
	if l != nil {
		_ = l.Close()
	}
}

func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// registerRestart registers a restart with the stop (see Container.onExit): false if the pod is
// stopping.
func (p *podWorker) registerRestart() bool {
	registered := false
	p.do(func() {
		if !p.stopping {
			p.restarts.Add(1)
			registered = true
		}
	})
	return registered
}
