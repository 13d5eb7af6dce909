package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/poddir"
	"github.com/podlife/podlife/podlife/internal/worker/goroutines"
	"github.com/podlife/podlife/podlife/internal/worker/host"
	"github.com/podlife/podlife/podlife/internal/worker/observe"
	"github.com/podlife/podlife/podlife/internal/worker/record"
)

// What the Runtime gives its workers (Host) and calls on them beyond the pod's own API (pod.go,
// stop.go, ...): the start, the adoption's constructor, and the Runtime's close.

// Host is what the Runtime gives each worker (see package host), with the worker's methods.
type Host host.Host[*Worker]

// HostConfig is the part of the Runtime's Config the workers read (see host.Config).
type HostConfig = host.Config

// Start starts the pod's loop and its start sequence, once the Runtime registered the pod.
func (p *Worker) Start() {
	p.spawn(gLoop, p.runLoop)
	p.spawn(gStart, p.run)
}

// Discard undoes New for a pod the Runtime could not register: it removes the pod's directory
// (nothing else of the pod exists) and releases the pods' lock New took.
func (p *Worker) Discard() error {
	err := poddir.Remove(p.sandbox.Dir())
	p.records.Release()
	return err
}

// Started is closed when the start sequence finished and any failed start was undone; then
// StartErr and ConfigErr say how (see WaitStarted).
func (p *Worker) Started() <-chan struct{} { return p.started }

// StartErr is the start's *StartError, the pod then removed (read it once Started is closed).
func (p *Worker) StartErr() error { return p.startErr }

// ConfigErr is the start's error for a container that cannot be created with its settings
// (ErrCreateContainerConfig): the pod stays (read it once Started is closed).
func (p *Worker) ConfigErr() error { return p.configErr }

// Stopped is closed when every process of the pod is gone and its network released.
func (p *Worker) Stopped() <-chan struct{} { return p.stopped }

// Removed is closed when the pod was removed.
func (p *Worker) Removed() <-chan struct{} { return p.removed }

// Emit records an event of the pod (container "" for the pod's own).
func (p *Worker) Emit(container string, typ api.EventType, reason api.Reason, msg string) {
	p.emit(container, typ, reason, msg)
}

// Abandon stops what the worker started for the pod (probe workers, restart back-offs, hooks
// of a start in progress, exit watchers: they return without recording an exit), not the pod:
// the Runtime closes. Its deadline timer and status writer end with the Host's Closing.
func (p *Worker) Abandon() {
	p.cancelStart()
	p.stopWatch()
}

// AwaitAbandoned waits, after Abandon and the close of the Host's Closing, for the pod's
// status.json to be written a last time (or for the deadline) and for its loop to end: nothing
// of this process changes the pod any more, and another process may adopt it. Then it waits,
// until the deadline, for the other goroutines the worker started (a stop in progress may
// outlive it: it is logged).
func (p *Worker) AwaitAbandoned(deadline time.Time) {
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	select {
	case <-p.persisted:
	case <-ctx.Done():
	}
	<-p.owner.Done()
	if !p.goroutines.Await(ctx.Done()) {
		live, _ := p.goroutines.Counts()
		p.log.Info("runtime closed: goroutines of the pod still run", "goroutines", goroutines.Describe(live))
	}
}

// Detach leaves a stopped pod adopted for its stop (Observed.ForStop) unmanaged again: its
// status written, forgotten by the Runtime (which releases its adoption lock).
func (p *Worker) Detach() {
	close(p.persistQuit)
	<-p.persisted
	p.host.Forget(p)
}

// Observed is what an adopter found of a pod some other process started (see
// observe.Adopted): the worker of Restore is built from it.
type Observed = observe.Adopted

// Restore builds the worker of a pod from what an adopter observed, its containers bound to
// the containerd objects found (o.Found): it reads nothing of the pod's directory or of
// containerd (its adopter did, with observe.Observe), but deletes the instances of restarts
// cut before their task existed and subscribes to the exits of the tasks found. The pod's
// loop and supervision start with resume, which the caller runs once it registered the worker.
func Restore(ctx context.Context, h *Host, o Observed) (w *Worker, resume func(), err error) {
	rec := o.Record
	// The deadline set on the running pod is kept; the spec's as started stays its spec.
	spec, recorded, deadline := record.DeadlineUpdate(o.Spec, o.Recorded, rec)
	p := assemblePod(h, spec, recorded, o.Handler, o.Dir, rec.UID)
	p.deadlineSet, p.startTime = deadline, rec.Created
	if o.ForStop {
		p.stopRecord = &rec
	}
	p.network, p.netRecord = o.Network, rec.Network
	// The dead manager's execs in flight (a hook, a probe) wait for a reader of their output:
	// until one comes, the shim holds back their container's exit for 30 s (see ctrd).
	if n := o.Found.Drained; n > 0 {
		p.log.Info("reading away the output of the previous manager's execs in flight", "fifos", n)
	}
	if rec.ShimGroup != "" && p.pause == nil && p.shim.AdoptGroup(rec.ShimGroup) {
		p.shimOwner.plannedID = rec.ShimGroup
	}
	if err := o.Found.SupervisionErr; err != nil {
		p.log.Warn("supervision state unreadable: restart back-off and hook state start afresh", "err", err)
	}
	p.supLoaded, p.sup = o.Found.Supervision, record.NewSupervisionWriter(o.Dir, o.Found.Supervision)
	plan, err := p.bind(ctx, o.Found)
	if err != nil {
		return nil, nil, fmt.Errorf("pod %q: adopt: %w", spec.Name, err)
	}
	return p, func() { p.resume(plan, rec.OwnerPID, o.ForStop) }, nil
}

// Exec runs argv in container c of the pod (see Container.exec): the public Pod.Exec of a pod
// this worker runs.
func (p *Worker) Exec(ctx context.Context, c *Container, argv []string, streams api.ExecIO) (int, error) {
	return c.exec(ctx, argv, streams)
}
