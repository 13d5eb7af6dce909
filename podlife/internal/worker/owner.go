package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"slices"

	"github.com/podlife/podlife/podlife/internal/worker/ownerloop"
	"github.com/podlife/podlife/podlife/internal/worker/status"
)

// The pod's owner loop (package ownerloop) alone reads and writes the pod's mutable state: other
// goroutines hand it closures (do, update, updateIf), readers read its snapshot (view).

// snapshot is what the loop published after a change. Nothing in it is written after it is
// published: readers share it.
type snapshot struct {
	status     PodStatus
	ctrs       map[*Container]ctrSnapshot
	ephemerals []*Container
	// notify is closed when a newer snapshot replaces this one.
	notify chan struct{}
}

type ctrSnapshot struct {
	status      ContainerStatus
	id, logPath string
}

func newOwner() *ownerloop.Loop[snapshot] { return ownerloop.New[snapshot]() }

// runLoop is the pod's owner goroutine: it returns once the pod has been removed (endLoop) or
// the Runtime is closed. do, update and updateIf are ownerloop.Loop's Do, Update and UpdateIf:
// they return false, f not run, once the loop has ended.
func (p *Worker) runLoop() { p.owner.Run(p.host.Closing, p.publish) }

// endLoop ends the pod's loop (once its current closure has run) and waits for it.
func (p *Worker) endLoop() { p.owner.End() }

// do runs f on the pod's loop; f changes nothing the pod's status shows.
func (p *Worker) do(f func()) bool { return p.owner.Do(f) }

// update runs f on the pod's loop, then publishes the new snapshot (publish) before it returns.
func (p *Worker) update(f func()) bool { return p.owner.Update(f) }

// updateIf is update when f reports a change, else do.
func (p *Worker) updateIf(f func() bool) bool { return p.owner.UpdateIf(f) }

// publish recomputes the phase and conditions from the state just changed and publishes a new
// snapshot. It runs on the loop (or in New, before the loop starts).
func (p *Worker) publish() {
	s := &snapshot{notify: make(chan struct{}), ephemerals: slices.Clip(slices.Clone(p.ephemerals)),
		ctrs: make(map[*Container]ctrSnapshot, len(p.byName)+len(p.ephemerals))}
	statuses := func(cs []*Container) []ContainerStatus {
		sts := make([]ContainerStatus, len(cs))
		for i, c := range cs {
			sts[i] = c.statusOwned()
			cs := ctrSnapshot{status: sts[i]}
			if c.cur != nil {
				cs.id, cs.logPath = c.cur.id, c.cur.logPath
			}
			s.ctrs[c] = cs
		}
		return sts
	}
	inits, apps := statuses(p.inits), statuses(p.apps)
	switch {
	case p.failReason != "" && p.terminated:
		p.phase = PhaseFailed
	case p.phase != PhaseSucceeded && p.phase != PhaseFailed || p.stopping:
		p.phase = p.completionPhaseOwned(status.ComputePhase(p.restartsByName, p.terminated, inits, apps, p.sidecars), inits, apps)
	}
	s.status = PodStatus{Name: p.name, Phase: p.phase, Reason: p.reason, Message: p.message,
		PodIP: p.podIP, StartTime: p.startTime, Stopping: p.stopping,
		Conditions: slices.Clone(p.conditionsOwned(inits, apps)), ContainerStatuses: apps}
	if len(p.inits) > 0 {
		s.status.InitContainerStatuses = inits
	}
	if len(p.ephemerals) > 0 {
		s.status.EphemeralContainerStatuses = statuses(p.ephemerals)
	}
	if old := p.owner.Publish(s); old != nil {
		close(old.notify)
	}
}

// view returns the pod's last published snapshot (nil for a pod whose loop never ran: a test's
// bare Pod).
func (p *Worker) view() *snapshot {
	if p.owner == nil {
		return nil
	}
	return p.owner.Load()
}
