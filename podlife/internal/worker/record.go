package worker

import (
	"fmt"
	"os"
	"time"

	"github.com/podlife/podlife/podlife/internal/worker/record"
)

// The pod's records on disk (pod.json, status.json, supervision.json) are written by package
// record from values the worker takes on the pod's loop. supervision.json is written at each
// change, before the step it records; a failure to write it is logged (the pod goes on: only
// an adoption after a crash would miss it).

// writeRecord writes the pod's record, pod.json, from a snapshot of the pod taken on its loop
// (or, once the loop ended, of the state it left): writes issued at once land in the order of
// their snapshots (see record.Writer). The first one that succeeds releases the pods' lock the
// pod's directory was made (or a warm pool member's taken) under; after a failure the lock stays
// until the failed start's removal is over (see run and remove).
func (p *Worker) writeRecord() error {
	key, err := p.host.SpecKey()
	if err != nil {
		return fmt.Errorf("pod record: %w", err) // the pods' lock stays: see record.Writer.Write
	}
	s := record.Snapshot{Key: key}
	var ticket uint64
	shimGroup, control := p.shimGroup(), p.host.ControlPath()
	p.onLoopOrAfter(func() {
		s.Dir, s.Recorded, s.Kept = p.sandbox.Dir(), p.recorded, p.stopRecord
		s.Record = record.Record{
			Name: p.name, Namespace: p.spec.Namespace, UID: p.uid, Created: p.startTime,
			OwnerPID: os.Getpid(), Control: control, Grace: GracePeriod(&p.spec),
			HostNetwork: p.spec.HostNetwork, Ports: PortMappings(&p.spec),
			ShimGroup: shimGroup, Network: p.netRecord, ActiveDeadline: p.deadlineSet,
		}
		ticket = p.records.Ticket()
	})
	s.WriteFile = p.writeRecordFile // a taken warm pool member's first record: see warmmember.Member.WriteRecord
	return p.records.Write(ticket, s)
}

// persistStatus rewrites status.json whenever the status changes, until quit is closed (see
// record.PersistStatus).
func (p *Worker) persistStatus(quit <-chan struct{}) {
	defer close(p.persisted)
	latest := func() (any, <-chan struct{}) {
		ch := p.view().notify
		return p.Status(), ch
	}
	record.PersistStatus(p.sandbox.Dir(), latest, quit, p.host.Closing, p.log)
}

// onLoopOrAfter runs f on the pod's loop, or here once the loop has ended: the loop's state
// then stays as it left it, so f must only read it.
func (p *Worker) onLoopOrAfter(f func()) {
	if !p.do(f) {
		f()
	}
}

// persistStop records that the pod's stop began, so that an adopter after a crash finishes it.
func (p *Worker) persistStop(grace time.Duration, hooks bool) {
	if p.sup == nil {
		return
	}
	if err := p.sup.BeginStop(record.StopIntent{Since: p.host.Clock.Now(), Grace: grace, Hooks: hooks}); err != nil {
		p.log.Warn("stop not persisted: an adopter after a crash would resume the pod", "err", err)
	}
}

// persistSupervision records a change of c's supervision state.
func (c *Container) persistSupervision(fn func(*record.ContainerSupervision)) {
	p := c.pod
	if p.sup == nil || c.ephemeral {
		return
	}
	if err := p.sup.Update(c.spec.Name, fn); err != nil {
		p.log.Warn("supervision state not persisted", "container", c.spec.Name, "err", err)
	}
}

// persistBackoff records c's crash-loop back-off entry.
func (c *Container) persistBackoff() {
	delay, updated := c.pod.host.Backoff.State(c.backoffKey())
	c.persistSupervision(func(s *record.ContainerSupervision) { s.BackoffDelay, s.BackoffUpdated = delay, updated })
}
