package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"slices"

	"github.com/podlife/podlife/podlife/internal/worker/ownerloop"
	"github.com/podlife/podlife/podlife/internal/worker/status"
)

// The pod's owner loop (package ownerloop) is the only code to read or write the pod's mutable
// state (its phase, conditions and stop flags, every container's instances and state, the
// sandbox's IP, the ephemeral containers): other goroutines hand it closures with do, update or
// updateIf; readers read the snapshot it publishes after every update (view). A closure does no
// I/O, calls no user code and never calls do or update. The loop ends when the pod has been
// removed or the Runtime is closed; do and update then return false.

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
	status  ContainerStatus
	id      string
	logPath string
}

func newOwner() *ownerloop.Loop[snapshot] { return ownerloop.New[snapshot]() }

// runLoop is the pod's owner goroutine (see ownerloop.Loop.Run); it returns once the pod has
// been removed (endLoop) or the Runtime is closed.
func (p *Worker) runLoop() { p.owner.Run(p.host.Closing, p.publish) }

// endLoop ends the pod's loop (once its current closure has run) and waits for it.
func (p *Worker) endLoop() { p.owner.End() }

// do runs f on the pod's loop and returns once it has run; f changes nothing the pod's status
// shows (see update). It returns false, f not run, once the loop has ended.
func (p *Worker) do(f func()) bool { return p.owner.Do(f) }

// update runs f on the pod's loop like do, then recomputes the pod's phase and conditions,
// publishes the new snapshot and wakes every waiter (WaitFor), before it returns.
func (p *Worker) update(f func()) bool { return p.owner.Update(f) }

// updateIf is update when f reports a change, else do.
func (p *Worker) updateIf(f func() bool) bool { return p.owner.UpdateIf(f) }

// publish recomputes the phase and conditions from the state just changed and publishes a new
// snapshot. It runs on the loop (or in New, before the loop starts).
func (p *Worker) publish() {
	inits, apps := p.statusesOwned(p.inits), p.statusesOwned(p.apps)
	switch {
	case p.failReason != "" && p.terminated:
		p.phase = PhaseFailed
	case p.phase != PhaseSucceeded && p.phase != PhaseFailed || p.stopping:
		p.phase = p.completionPhaseOwned(status.ComputePhase(p.restartsByName, p.terminated, inits, apps, p.sidecars), inits, apps)
	}
	p.conditions = p.conditionsOwned(inits, apps)
	s := &snapshot{notify: make(chan struct{}), ephemerals: slices.Clip(slices.Clone(p.ephemerals)),
		ctrs: make(map[*Container]ctrSnapshot, len(p.byName)+len(p.ephemerals))}
	s.status = PodStatus{Name: p.name, Phase: p.phase, Reason: p.reason, Message: p.message,
		PodIP: p.podIP, StartTime: p.startTime, Stopping: p.stopping,
		Conditions: slices.Clone(p.conditions), ContainerStatuses: apps}
	if len(p.inits) > 0 {
		s.status.InitContainerStatuses = inits
	}
	if len(p.ephemerals) > 0 {
		s.status.EphemeralContainerStatuses = p.statusesOwned(p.ephemerals)
	}
	add := func(cs []*Container, sts []ContainerStatus) {
		for i, c := range cs {
			cs := ctrSnapshot{status: sts[i]}
			if c.cur != nil {
				cs.id, cs.logPath = c.cur.id, c.cur.logPath
			}
			s.ctrs[c] = cs
		}
	}
	add(p.inits, inits)
	add(p.apps, apps)
	add(p.ephemerals, s.status.EphemeralContainerStatuses)
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
