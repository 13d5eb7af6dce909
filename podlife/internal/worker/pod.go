package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/tasks"

	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/podlife/internal/eventbus"
	"github.com/podlife/podlife/podlife/internal/worker/goroutines"
	"github.com/podlife/podlife/podlife/internal/worker/lifecycle"
	"github.com/podlife/podlife/podlife/internal/worker/ownerloop"
	"github.com/podlife/podlife/podlife/internal/worker/podsandbox"
	"github.com/podlife/podlife/podlife/internal/worker/podupdate"
	"github.com/podlife/podlife/podlife/internal/worker/record"
	"github.com/podlife/podlife/podlife/internal/worker/resizing"
	"github.com/podlife/podlife/podlife/internal/worker/restarting"
	"github.com/podlife/podlife/podlife/internal/worker/status"
	"github.com/podlife/podlife/podlife/internal/worker/warmmember"
)

// Worker is a pod's worker: the handle the Runtime's Pod wraps. Its methods are safe for
// concurrent use: the pod's state belongs to its owner loop (see the package doc), and reads
// come from the snapshot the loop last published. The pod's life belongs to the Runtime, not to
// any caller's context: only Stop and Remove end it.
type Worker struct {
	host      *Host
	name, uid string
	// spec is defaulted at admission (PodSpec.WithDefaults): nothing re-defaults it. recorded
	// is the form of it the record keeps and fingerprints (see recordedSpec).
	spec, recorded PodSpec
	log            *slog.Logger
	events         *eventbus.Bus
	sandbox        *podsandbox.Sandbox
	inits, apps    []*Container
	byName         map[string]*Container
	sidecars       map[string]bool   // the restartable init containers' names
	goroutines     *goroutines.Group // the goroutines the worker started for the pod (group.go)

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

	stopOnce  sync.Once
	stopped   chan struct{} // closed when every process is gone and the network released
	stopErr   error
	shimOwner *Container       // the container whose NewTask starts the pod's shim (see withShim)
	shim      *podsandbox.Shim // the pod's shim choice and the start of its shim
	pause     *pause           // the pause of a pod with ShareProcessNamespace, else nil
	handler   tasks.Class      // the containerd runtime of its containers and pause (spec.RuntimeClassName)

	removeOnce sync.Once
	removed    chan struct{}
	removeErr  error

	persistQuit chan struct{} // closed by Remove: stop writing status.json
	persisted   chan struct{} // closed when persistStatus returned

	// owner is the pod's loop. It alone reads and writes the fields below, the sandbox's IP and
	// the containers' mutable state (see owner.go); others read its snapshots.
	owner                  *ownerloop.Loop[snapshot]
	stopping, sandboxReady bool
	completing             bool // the stop of a completed pod with sidecars still running was started
	terminated             bool // every process gone after a stop: the phase is final
	netAttached            bool // a network attachment may exist (intent recorded; see podNet)
	podIP                  netip.Addr
	failReason             Reason // set when the pod is failed by podlife itself (DeadlineExceeded)
	condTimes              status.Transitions
	custom                 []PodCondition // set by SetCondition, in the order first set
	phase                  Phase
	reason                 Reason
	message                string
	startTime              time.Time
	ephemerals             []*Container              // added by AddEphemeralContainer, in order; never removed
	starts                 lifecycle.Gate            // the Task.Starts granted, not recorded yet (awaitStarts)
	restartAll             restarting.All[*instance] // the restart of all the containers in progress

	sup       *record.SupervisionWriter // supervision.json: what an adopter needs (see record.go)
	supLoaded record.Supervision        // supervision.json as the previous manager left it (Restore)
	// stopRecord is the record of a pod adopted only to stop it: its spec (the record's, without
	// values) is not the pod's, so its record keeps the fingerprints it had (see writeRecord).
	stopRecord *record.Record
	// network is the network the pod is attached to, and netRecord its description in the
	// pod's record: the Runtime's, or for an adopted pod the recorded one.
	network   cni.Network
	netRecord *cni.Record
	// deadlineSet is the active deadline set on the running pod (see pod_end.go), nil if none;
	// deadlineChanged (buffered) tells enforceDeadline of a change.
	deadlineSet     *time.Duration
	deadlineChanged chan struct{}
	records         *record.Writer     // writes pod.json (writeRecord) in the order of its snapshots
	resizing        resizing.Gate      // runs the pod's resizes one at a time (resize.go)
	warm            *warmmember.Member // set on a warm pool member (warm_member.go) before its loop starts
}

// New makes the pod of spec (admitted: see Runtime.admit) and its directory.
func New(r *Host, spec, recorded PodSpec, handler tasks.Class) (*Worker, error) {
	dir, release, err := podsandbox.MakeDir(r.Cfg.StateDir, spec.Name) // released once pod.json is written
	if err != nil {
		return nil, err
	}
	p := assemblePod(r, spec, recorded, handler, dir, NewID())
	p.records = record.NewWriter(release)
	return p, nil
}

// assemblePod builds the Pod of spec (defaults applied; recorded is its record's form, see
// recordedSpec) with its containers, in dir, nothing created yet: New's for a new pod,
// Adopt's for one that runs.
func assemblePod(r *Host, spec, recorded PodSpec, handler tasks.Class, dir, uid string) *Worker {
	p := &Worker{
		host: r, name: spec.Name, uid: uid, spec: spec, recorded: recorded, handler: handler,
		log:      r.Log.With("pod", spec.Name),
		events:   eventbus.New(r.Events),
		byName:   map[string]*Container{},
		netReady: make(chan struct{}), seqDone: make(chan struct{}), started: make(chan struct{}),
		stopped: make(chan struct{}), removed: make(chan struct{}), deadlineChanged: make(chan struct{}, 1),
		persistQuit: make(chan struct{}), persisted: make(chan struct{}), goroutines: goroutines.NewGroup(),
		phase: PhasePending, owner: newOwner(), startTime: r.Clock.Now(), resizing: resizing.NewGate(),
		condTimes: status.Transitions{},
		sup:       record.NewSupervisionWriter(dir, record.Supervision{}),
		records:   record.NewWriter(nil),
		network:   r.Network, netRecord: r.NetworkRecord(),
	}
	p.lifeCtx = r.Ctx(context.Background())
	p.startCtx, p.cancelStart = context.WithCancel(p.lifeCtx)
	p.watchCtx, p.stopWatch = context.WithCancel(p.lifeCtx)
	p.sidecars = map[string]bool{}
	add := func(cs []ContainerSpec, init bool) []*Container {
		out := make([]*Container, len(cs))
		for i := range cs {
			c := &Container{pod: p, spec: &cs[i], init: init, plannedID: NewID(), prepared: make(chan struct{}),
				sidecar: init && cs[i].RestartPolicy == RestartAlways}
			c.st = status.NewContainer(len(p.spec.InitContainers) > 0)
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
	if spec.ShareProcessNamespace {
		p.pause = &pause{id: NewID()}
	}
	p.newSandbox(dir)
	p.publish() // the first snapshot, before the loop starts
	return p
}

// Name is the pod's name.
func (p *Worker) Name() string { return p.name }

// UID is a random identifier of this pod instance (it labels the pod's containerd objects).
func (p *Worker) UID() string { return p.uid }

// Spec returns the pod's spec with defaults applied (every default of PodSpec.WithDefaults).
func (p *Worker) Spec() PodSpec { return p.spec }

// Container returns the container of that name (init and ephemeral containers included).
func (p *Worker) Container(name string) (*Container, error) {
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
func (p *Worker) Events() []Event { return p.events.Recent() }

// Subscribe returns the pod's events: the recent ones first, then new ones as they happen. The
// channel is closed when ctx is done. Delivery never blocks the pod (see Runtime.Subscribe).
func (p *Worker) Subscribe(ctx context.Context) <-chan Event {
	return p.events.Subscribe(ctx, true, nil)
}

func (p *Worker) emit(container string, typ EventType, reason Reason, msg string) {
	p.emitAt(time.Now(), container, typ, reason, msg)
}

func (p *Worker) emitAt(t time.Time, container string, typ EventType, reason Reason, msg string) {
	e := Event{Time: t, Pod: p.name, Container: container, Type: typ, Reason: reason, Message: msg}
	p.log.Debug("event", "container", container, "reason", reason, "message", msg)
	p.events.Publish(e)
}

// Status returns a snapshot of the pod's status. It does no I/O and does not wait for the pod's
// loop: it copies the last snapshot the loop published.
func (p *Worker) Status() PodStatus { st, _ := p.statusNotify(); return st }

// statusNotify is Status and the channel closed when a newer snapshot replaces the one it read.
func (p *Worker) statusNotify() (PodStatus, <-chan struct{}) {
	v := p.view()
	return status.Copy(v.status), v.notify
}

// WaitFor blocks until cond holds for the pod's status, or ctx ends. It wakes on status changes,
// it does not poll.
func (p *Worker) WaitFor(ctx context.Context, cond func(PodStatus) bool) (PodStatus, error) {
	return ownerloop.WaitFor(ctx, p.statusNotify, cond)
}

// WaitStarted blocks until the start sequence finished and returns its error: nil, or a
// *StartError if the pod could not be set up (it has then been removed), or one wrapping
// ErrCreateContainerConfig if a container cannot be created with its settings (the pod stays).
func (p *Worker) WaitStarted(ctx context.Context) error {
	select {
	case <-p.started:
		return cmp.Or(p.startErr, p.configErr)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WaitReady blocks until every container is ready and every readiness gate's condition is
// True, or the pod ends, or ctx ends.
func (p *Worker) WaitReady(ctx context.Context) error {
	ready := func(s PodStatus) bool {
		r, n := s.ReadyCount()
		return r == n && podupdate.GatesMessage(p.spec.ReadinessGates, s.Conditions) == ""
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
func (p *Worker) Wait(ctx context.Context) (PodStatus, error) {
	return p.WaitFor(ctx, func(s PodStatus) bool { return s.Phase == PhaseSucceeded || s.Phase == PhaseFailed })
}

// isStopping reports whether a stop has begun (from the last snapshot).
func (p *Worker) isStopping() bool { return p.view().status.Stopping }
