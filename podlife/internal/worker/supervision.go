package worker

import (
	"time"

	"github.com/podlife/podlife/podlife/internal/worker/record"
)

// supervision.json (record.Supervision) is what an adopter needs beyond pod.json and
// status.json: the postStart hook in flight, the startup probe's success, the crash-loop
// back-off, the stop begun. The worker writes it at each change, before the step it records.

// persistStop records that the pod's stop began, so that an adopter after a crash finishes it;
// a failure is logged (the stop goes on; only an adoption after a crash would miss it).
func (p *Worker) persistStop(grace time.Duration, hooks bool) {
	if p.sup == nil {
		return
	}
	if err := p.sup.BeginStop(record.StopIntent{Since: p.host.Clock.Now(), Grace: grace, Hooks: hooks}); err != nil {
		p.log.Warn("stop not persisted: an adopter after a crash would resume the pod", "err", err)
	}
}

// persistSupervision records a change of c's supervision state; a failure is logged (the pod
// goes on; only an adoption after a crash would miss it).
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
