package podlife

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/containerd/containerd/v2/core/leases"
	"github.com/containerd/errdefs"

	"github.com/podlife/podlife/internal/failpoint"
)

// Pod is a handle on a running (or finished) pod. Its methods are safe for concurrent use: the
// pod's state belongs to its owner loop (see the package doc's "Who owns what"), and reads come
// from the snapshot the loop last published. The pod's life belongs to the runtime, not to any
// caller's context: only Stop and Remove end it.
type podWorker struct {
	rt      *Runtime
	name    string
	uid     string
	spec    PodSpec
	log     *slog.Logger
	events  *bus
	sandbox *podSandbox
	inits   []*Container
	apps    []*Container
	byName  map[string]*Container
	// sidecars names the restartable init containers (immutable).
	sidecars map[string]bool
	// ephemeralOps counts AddEphemeralContainer creations and starts in flight: registered
	// on the pod's loop while the pod is not stopping, waited for by the stop.
	ephemeralOps sync.WaitGroup

	lifeCtx     context.Context    // containerd calls that must outlive callers (namespaced, never cancelled)
	startCtx    context.Context    // cancelled when a stop begins
	cancelStart context.CancelFunc // cancels startCtx
	watchCtx    context.Context    // exit watchers' task waits: cancelled by Runtime.Close only
	stopWatch   context.CancelFunc // cancels watchCtx

	netReady chan struct{} // closed once the network attach finished (netErr says how)
	netErr   error
	seqDone  chan struct{} // closed when the start sequence returned
	started  chan struct{} // closed when the start sequence finished and any failed start was undone (startErr says how)
	startErr error
	// configErr is the start's *StartError for a container that cannot be created with its
	// settings (ErrCreateContainerConfig): unlike startErr, the pod stays.
	configErr error

	// startGate: every Task.Start holds it for reading, with the check that the pod is not
	// stopping; a stop takes it once, so that no process starts after the stop began.
	startGate sync.RWMutex

	stopOnce      sync.Once
	stopped       chan struct{} // closed when every process is gone and the network released
	stopErr       error
	shimOwner     *Container    // the container whose NewTask starts the pod's shim (see withShim)
	pause         *pause        // the pause of a pod with ShareProcessNamespace, else nil
	handler       ctrRuntime    // the containerd runtime of its containers and pause (spec.RuntimeClassName)
	shimReady     chan struct{} // closed once the pod's shim answers
	shimReadyOnce sync.Once
	shimMu        sync.Mutex
	shimStarter   *Container // starts the pod's shim: shimOwner, or another if it cannot be created (handOverShim)

	restarts   sync.WaitGroup // restarts in flight
	dirUnlock  func()         // releases the pods' lock taken when the directory was created (see poddir.go)
	removeOnce sync.Once
	removed    chan struct{}
	removeErr  error

	persistQuit chan struct{} // closed by Remove: stop writing status.json
	persisted   chan struct{} // closed when persistStatus returned

	// owner is the pod's loop. It alone reads and writes the fields below, the sandbox's IP and
	// the containers' mutable state (see owner.go); others read its snapshots.
	owner        *owner
	stopping     bool
	completing   bool // the stop of a completed pod with sidecars still running was started
	terminated   bool // every process gone after a stop: the phase is final
	sandboxReady bool
	failReason   Reason // set when the pod is failed by podlife itself (DeadlineExceeded)
	conditions   []PodCondition
	condTimes    map[ConditionType]condTime
	custom       []PodCondition // set by SetCondition, in the order first set
	phase        Phase
	reason       Reason
	message      string
	startTime    time.Time
	ephemerals   []*Container // added by AddEphemeralContainer, in order; never removed

	sup       *supervisionStore // supervision.json: what an adopter needs (see supervision.go)
	adoptMu   sync.Mutex        // guards adoptLock (not loop state: released after the loop ends)
	adoptLock io.Closer         // the pod's adoption lock, held by an adopter (see Runtime.Adopt)
	// stopRecord is the record of a pod adopted only to stop it: its spec (the record's, without
	// values) is not the pod's, so its record keeps the fingerprints it had (see writeRecord).
	stopRecord *podRecord
	// spec is defaulted at admission (PodSpec.WithDefaults): nothing re-defaults it. recorded
	// is the form of it the record keeps and fingerprints (see recordedSpec).
	recorded PodSpec
}

// newPod makes the pod of spec (admitted: see Runtime.admit) and its directory.
func newPod(r *Runtime, spec, recorded PodSpec, handler ctrRuntime) (*podWorker, error) {
	dir := filepath.Join(r.cfg.StateDir, "pods", spec.Name)
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return nil, fmt.Errorf("podlife: state dir: %w", err)
	}
	dirUnlock, err := mkPodDir(r.cfg.StateDir, dir) // released once pod.json is written
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("pod %q: state directory %s exists (a pod of that name exists or was not removed): %w", spec.Name, dir, ErrAlreadyExists)
		}
		return nil, fmt.Errorf("podlife: pod dir: %w", err)
	}
	p := assemblePod(r, spec, recorded, handler, dir, newID())
	p.dirUnlock = dirUnlock
	return p, nil
}

// assemblePod builds the Pod of spec (defaults applied; recorded is its record's form, see
// recordedSpec) with its containers, in dir, nothing created yet: newPod's for a new pod,
// Adopt's for one that runs.
func assemblePod(r *Runtime, spec, recorded PodSpec, handler ctrRuntime, dir, uid string) *podWorker {
	p := &podWorker{
		rt: r, name: spec.Name, uid: uid, spec: spec, recorded: recorded, handler: handler,
		log:      r.log.With("pod", spec.Name),
		events:   newBus(r.events),
		byName:   map[string]*Container{},
		netReady: make(chan struct{}), seqDone: make(chan struct{}), started: make(chan struct{}),
		stopped: make(chan struct{}), removed: make(chan struct{}),
		persistQuit: make(chan struct{}), persisted: make(chan struct{}),
		phase: PhasePending, owner: newOwner(), startTime: r.clock.Now(),
		condTimes: map[ConditionType]condTime{},
		sup:       newSupervisionStore(dir),
	}
	p.lifeCtx = r.ctx(context.Background())
	p.startCtx, p.cancelStart = context.WithCancel(p.lifeCtx)
	p.watchCtx, p.stopWatch = context.WithCancel(p.lifeCtx)
	p.sandbox = &podSandbox{pod: p, dir: dir, hostname: spec.Hostname}
	p.sidecars = map[string]bool{}
	add := func(cs []ContainerSpec, init bool) []*Container {
		out := make([]*Container, len(cs))
		for i := range cs {
			c := &Container{pod: p, spec: &cs[i], init: init, plannedID: newID(), prepared: make(chan struct{}),
				sidecar: init && cs[i].RestartPolicy == RestartAlways}
			// The kubelet's default waiting reason for a container not created yet: every one
			// of a pod with init containers (the init containers too) waits in PodInitializing.
			reason := ReasonContainerCreating
			if len(p.spec.InitContainers) > 0 {
				reason = ReasonPodInitializing
			}
			c.state = ContainerState{Waiting: &StateWaiting{Reason: reason}}
			if c.sidecar {
				p.sidecars[c.spec.Name] = true
			}
			out[i] = c
			p.byName[c.spec.Name] = c
		}
		return out
	}
	if len(spec.InitContainers) > 0 {
		p.inits = add(p.spec.InitContainers, true)
	}
	p.apps = add(p.spec.Containers, false)
	p.shimOwner = p.apps[0]
	if len(p.inits) > 0 {
		p.shimOwner = p.inits[0]
	}
	p.shimStarter = p.shimOwner
	p.shimReady = make(chan struct{})
	if spec.ShareProcessNamespace {
		p.pause = &pause{id: newID()}
	}
	p.publish() // the first snapshot, before the loop starts
	return p
}

// Name is the pod's name.
func (p *podWorker) Name() string { return p.name }

// UID is a random identifier of this pod instance (it labels the pod's containerd objects).
func (p *podWorker) UID() string { return p.uid }

// Spec returns the pod's spec with defaults applied (every default of PodSpec.WithDefaults).
func (p *podWorker) Spec() PodSpec { return p.spec }

// Container returns the container of that name (init and ephemeral containers included).
func (p *podWorker) Container(name string) (*Container, error) {
	if c, ok := p.byName[name]; ok {
		return c, nil
	}
	for _, c := range p.view().ephemerals {
		if c.spec.Name == name {
			return c, nil
		}
	}
	return nil, fmt.Errorf("pod %q: container %q: %w", p.name, name, ErrNotFound)
}

// Events returns the pod's recent events (up to 256), oldest first.
func (p *podWorker) Events() []Event { return p.events.recent() }

// Subscribe returns the pod's events: the recent ones first, then new ones as they happen. The
// channel is closed when ctx is done. Delivery never blocks the pod (see Runtime.Subscribe).
func (p *podWorker) Subscribe(ctx context.Context) <-chan Event {
	return p.events.subscribe(ctx, true, nil)
}

func (p *podWorker) emit(container string, typ EventType, reason Reason, msg string) {
	p.emitAt(time.Now(), container, typ, reason, msg)
}

func (p *podWorker) emitAt(t time.Time, container string, typ EventType, reason Reason, msg string) {
	e := Event{Time: t, Pod: p.name, Container: container, Type: typ, Reason: reason, Message: msg}
	p.log.Debug("event", "container", container, "reason", reason, "message", msg)
	p.events.publish(e)
}

func (p *podWorker) statusesOwned(cs []*Container) []ContainerStatus {
	out := make([]ContainerStatus, len(cs))
	for i, c := range cs {
		out[i] = c.statusOwned()
	}
	return out
}

// Status returns a snapshot of the pod's status. It does no I/O and does not wait for the pod's
// loop: it copies the last snapshot the loop published.
func (p *podWorker) Status() PodStatus {
	st := p.view().status
	st.Conditions = slices.Clone(st.Conditions)
	st.ContainerStatuses = slices.Clone(st.ContainerStatuses)
	st.InitContainerStatuses = slices.Clone(st.InitContainerStatuses)
	st.EphemeralContainerStatuses = slices.Clone(st.EphemeralContainerStatuses)
	return st
}

// WaitFor blocks until cond holds for the pod's status, or ctx ends. It wakes on status changes,
// it does not poll.
func (p *podWorker) WaitFor(ctx context.Context, cond func(PodStatus) bool) (PodStatus, error) {
	for {
		ch := p.view().notify
		st := p.Status() // this snapshot or a newer one: a change after it closes ch
		if cond(st) {
			return st, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return st, ctx.Err()
		}
	}
}

// WaitStarted blocks until the start sequence finished and returns its error: nil, or a
// *StartError if the pod could not be set up (it has then been removed), or one wrapping
// ErrCreateContainerConfig if a container cannot be created with its settings (the pod stays).
func (p *podWorker) WaitStarted(ctx context.Context) error {
	select {
	case <-p.started:
		return cmp.Or(p.startErr, p.configErr)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WaitReady blocks until every container is ready and every readiness gate's condition is
// True, or the pod ends, or ctx ends.
func (p *podWorker) WaitReady(ctx context.Context) error {
	ready := func(s PodStatus) bool {
		r, n := s.ReadyCount()
		return r == n && gatesMessage(p.spec.ReadinessGates, s.Conditions) == ""
	}
	st, err := p.WaitFor(ctx, func(s PodStatus) bool {
		return ready(s) || s.Phase == PhaseSucceeded || s.Phase == PhaseFailed
	})
	if err != nil {
		return err
	}
	if !ready(st) {
		return fmt.Errorf("pod %q ended %s before it was ready", p.name, st.Phase)
	}
	return nil
}

// Wait blocks until the pod reaches a terminal phase (Succeeded or Failed) and returns its status.
func (p *podWorker) Wait(ctx context.Context) (PodStatus, error) {
	return p.WaitFor(ctx, func(s PodStatus) bool { return s.Phase == PhaseSucceeded || s.Phase == PhaseFailed })
}

// isStopping reports whether a stop has begun (from the last snapshot).
func (p *podWorker) isStopping() bool { return p.view().status.Stopping }

// run is the pod's start sequence: sandbox, then network attach and container preparation in
// parallel, then init containers, then the start policy.
func (p *podWorker) run() {
	// Without its record, the pod would be invisible to other processes and taken for the
	// leftover of a crash by their startup garbage collection (gc.go): it does not start.
	recErr := p.writeRecord()
	failpoint.Hit("run.record")
	go p.persistStatus(p.persistQuit)
	if d := p.spec.ActiveDeadline; d != nil && recErr == nil {
		go p.enforceDeadline(*d)
	}
	var err error
	if recErr != nil {
		close(p.netReady)
		err = &StartError{Pod: p.name, Step: StepSandbox, Err: fmt.Errorf("write the pod record: %w", recErr)}
	} else {
		err = p.startSequence()
	}
	close(p.seqDone)
	if err != nil && (p.isStopping() || errors.Is(err, errPodFailed)) {
		// A stop cancelled the start, or the pod failed on its own: the pod stays.
		p.log.Debug("start sequence ended", "err", err)
		err = nil
	}
	if err != nil && errors.Is(err, ErrCreateContainerConfig) {
		// A container cannot be created with its settings: the pod stays, that container
		// Waiting (CreateContainerConfigError), as the kubelet's; Run reports it.
		p.log.Info("a container cannot be created with its settings; the pod stays", "err", err)
		p.configErr = err
		err = nil
	}
	if err != nil && p.rt.isClosed() {
		// The runtime detached while the pod started: what exists of it stays for another
		// Runtime (Pod.Remove).
		p.log.Info("runtime closed while the pod started", "err", err)
		p.startErr = fmt.Errorf("pod %q: %w (start: %w)", p.name, ErrClosed, err)
		err = nil
	}
	if err != nil {
		p.log.Info("pod failed to start; removing it", "err", err)
		p.startErr = err
		removed := make(chan struct{})
		go func() {
			defer close(removed)
			ctx, cancel := context.WithTimeout(p.lifeCtx, time.Minute)
			defer cancel()
			p.stopWith(ctx, 0, false, err)
			_ = p.Remove(ctx)
		}()
		select {
		case <-removed:
		case <-p.rt.connLostCh():
			// containerd is away (maybe the cause of the failure): Run returns now; the
			// removal goes on and completes once containerd answers again.
			p.startErr = fmt.Errorf("%w (containerd does not answer: the pod is removed once it is back: %w)", err, ErrUnavailable)
		}
	}
	close(p.started)
}

func (p *podWorker) startSequence() error {
	ctx := p.startCtx
	t0 := time.Now()
	defer func() { p.log.Debug("start sequence done", "took", time.Since(t0)) }()
	if err := p.createLease(ctx); err != nil {
		close(p.netReady)
		return &StartError{Pod: p.name, Step: StepSandbox, Err: err}
	}
	if err := p.sandbox.create(); err != nil {
		p.emit("", EventWarning, ReasonFailedCreateSandbox, "Failed to create pod sandbox: "+err.Error())
		close(p.netReady)
		return &StartError{Pod: p.name, Step: StepSandbox, Err: err}
	}
	if err := p.mountImageVolumes(leasedCtx(ctx, p)); err != nil {
		p.emit("", EventWarning, ReasonFailedCreateSandbox, "Failed to create pod sandbox: "+err.Error())
		close(p.netReady)
		return &StartError{Pod: p.name, Step: StepPull, Err: err}
	}
	if err := p.createPodCgroup(); err != nil {
		p.emit("", EventWarning, ReasonFailedCreateSandbox, "Failed to create pod sandbox: "+err.Error())
		close(p.netReady)
		return &StartError{Pod: p.name, Step: StepSandbox, Err: err}
	}
	p.log.Debug("sandbox created", "took", time.Since(t0))
	setupFailed := make(chan error, 1+len(p.byName))
	go func() {
		defer close(p.netReady)
		if err := p.sandbox.attach(ctx, p.rt.network); err != nil {
			p.netErr = &StartError{Pod: p.name, Step: StepNetwork, Err: err}
			p.emit("", EventWarning, ReasonFailedCreateSandbox, "Failed to create pod sandbox: "+err.Error())
			setupFailed <- p.netErr
			return
		}
		p.update(func() { p.sandboxReady = true })
		p.emit("", EventNormal, ReasonSandboxReady, "Pod sandbox ready, IP "+p.sandbox.IP().String())
	}()
	if p.pause != nil {
		// While the network attaches, before the containers' preparations: their specs
		// join the pause's PID namespace.
		if err := p.startPause(ctx); err != nil {
			p.emit("", EventWarning, ReasonFailedCreateSandbox, "Failed to create pod sandbox: "+err.Error())
			<-p.netReady
			return &StartError{Pod: p.name, Step: StepSandbox, Err: err}
		}
		p.log.Debug("pause started", "took", time.Since(t0))
	}
	// Every way out waits for every preparation, so no creation races a teardown.
	defer func() {
		for _, c := range p.byName {
			<-c.prepared
		}
		<-p.netReady
	}()
	// Any setup failure stops the sequence and every preparation still under way (a create
	// waiting for the pod's shim included): the pod is then removed whole.
	seqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	lctx := leasedCtx(seqCtx, p)
	for _, c := range append(append([]*Container{}, p.inits...), p.apps...) {
		go func() {
			c.prepare(lctx)
			if c.prepErr != nil && lctx.Err() == nil && !errors.Is(c.prepErr, errShimAborted) && !errors.Is(c.prepErr, ErrCreateContainerConfig) {
				setupFailed <- c.prepErr
			}
		}()
	}
	go func() {
		select {
		case err := <-setupFailed:
			cancel(err)
		case <-seqCtx.Done():
		}
	}()
	if err := p.runInits(seqCtx); err != nil {
		for _, c := range p.byName {
			<-c.prepared
		}
		if perr := p.rootPrepError(); perr != nil {
			return perr
		}
		return setupError(seqCtx, err)
	}
	names := make([]string, len(p.apps))
	for i, c := range p.apps {
		names[i] = c.spec.Name
	}
	err := p.spec.StartPolicy.Start(seqCtx, &podStarter{p: p, names: names, start: func(ctx context.Context, name string) error {
		c, ok := p.byName[name]
		if !ok || c.init {
			return fmt.Errorf("start policy asked for unknown container %q", name)
		}
		return c.start(ctx)
	}})
	for _, c := range p.byName {
		<-c.prepared
	}
	<-p.netReady
	if p.netErr != nil {
		return p.netErr
	}
	if err := p.rootPrepError(); err != nil {
		return err
	}
	if cause := context.Cause(seqCtx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	if err != nil && !p.isStopping() {
		// A container's CreateContainerConfigError leaves the pod (p.run): any other
		// container's failure goes first.
		var configErr error
		var se *StartError
		for _, e := range unwrapJoined(err) {
			switch {
			case !errors.As(e, &se) || se.Step == StepPostStart:
			case errors.Is(e, ErrCreateContainerConfig):
				configErr = cmp.Or(configErr, e)
			default:
				return e
			}
		}
		return configErr
	}
	return nil
}

// rootPrepError returns the failure that explains the others: in a shared shim, one container's
// failed create makes containerd shut the shim down, and a sibling's create in flight then fails
// with "ttrpc: closed", which is only a consequence.
func (p *podWorker) rootPrepError() error {
	var collateral error
	for _, c := range append(append([]*Container{}, p.inits...), p.apps...) {
		switch err := c.prepErr; {
		case err == nil || errors.Is(err, context.Canceled) || errors.Is(err, errShimAborted) || errors.Is(err, ErrCreateContainerConfig):
		case strings.Contains(err.Error(), "ttrpc: closed"):
			collateral = cmp.Or(collateral, err)
		default:
			return err
		}
	}
	return collateral
}

// setupError prefers the setup failure that cancelled the sequence over the cancellation itself.
func setupError(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	return err
}

func unwrapJoined(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// errPodFailed ends the start sequence of a pod that failed on its own (an init container failed
// under restartPolicy Never): the pod stays, Failed, for inspection.
var errPodFailed = errors.New("pod failed")

// runInits runs the init containers one at a time, in order. A regular init container must exit
// 0 (it is restarted under back-off until it does, or the pod fails under restartPolicy Never);
// the next one starts once a sidecar has started (its startupProbe succeeded, if any).
func (p *podWorker) runInits(ctx context.Context) error {
	for _, c := range p.inits {
		if err := c.start(ctx); err != nil {
			var se *StartError
			if !errors.As(err, &se) || se.Step != StepPostStart {
				return err
			}
		}
		st, err := p.WaitFor(ctx, func(st PodStatus) bool {
			cs := p.view().ctrs[c].status
			if c.sidecar {
				return cs.Started || st.Phase == PhaseFailed
			}
			t := cs.State.Terminated
			return t != nil && t.ExitCode == 0 || st.Phase == PhaseFailed
		})
		if err != nil {
			return err
		}
		if st.Phase == PhaseFailed {
			return errPodFailed
		}
	}
	return nil
}

func (p *podWorker) waitNetwork(ctx context.Context) error {
	select {
	case <-p.netReady:
		return p.netErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *podWorker) leaseID() string { return leaseID(p.uid) }

// leaseID is the containerd lease holding a pod's snapshots and images while it exists.
func leaseID(podUID string) string { return "podlife-" + podUID }

// leasedCtx makes containerd keep what is created under ctx as the pod's (until Remove).
func leasedCtx(ctx context.Context, p *podWorker) context.Context {
	return leases.WithLease(ctx, p.leaseID())
}

func (p *podWorker) createLease(ctx context.Context) error {
	return p.rt.tasks.createLease(ctx, p.leaseID(), map[string]string{LabelPod: p.name, labelPodUID: p.uid, labelStateDir: p.rt.cfg.StateDir})
}

func (p *podWorker) deleteLease(ctx context.Context) error {
	err := p.rt.retry(ctx, func() error { return p.rt.tasks.deleteLease(ctx, p.leaseID()) })
	if err != nil && !errdefs.IsNotFound(err) {
		return fmt.Errorf("delete lease: %w", err)
	}
	return nil
}

// onContainerExit stops the pod once it has reached a terminal phase on its own (every container
// exited and none will restart), releasing its network as the kubelet does.
func (p *podWorker) onContainerExit() {
	var terminal bool
	p.do(func() { terminal = p.phase == PhaseSucceeded || p.phase == PhaseFailed })
	if terminal && !p.rt.isClosed() {
		go p.stopWith(p.lifeCtx, p.spec.gracePeriod(), true, nil)
	}
}

// enforceDeadline fails the pod once it has been active longer than its activeDeadline: event
// DeadlineExceeded, phase Failed with that reason, a graceful stop with preStop hooks, no restarts.
func (p *podWorker) enforceDeadline(d time.Duration) {
	timer := p.rt.clock.NewTimer(p.startTime.Add(d).Sub(p.rt.clock.Now()))
	defer timer.Stop()
	select {
	case <-timer.C():
	case <-p.stopped:
		return
	case <-p.rt.closing:
		return
	}
	const msg = "Pod was active on the node longer than the specified deadline"
	var failed bool
	p.updateIf(func() bool {
		if p.stopping || p.phase == PhaseSucceeded || p.phase == PhaseFailed {
			return false
		}
		p.failReason = ReasonDeadlineExceeded
		p.reason, p.message = ReasonDeadlineExceeded, msg
		failed = true
		return true
	})
	if !failed {
		return
	}
	p.emit("", EventNormal, ReasonDeadlineExceeded, msg)
	p.stopWith(p.lifeCtx, p.spec.gracePeriod(), true, nil)
}
