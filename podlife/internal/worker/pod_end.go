package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"cmp"
	"fmt"
	"time"

	"github.com/podlife/podlife/podlife/internal/eviction"
	"github.com/podlife/podlife/podlife/internal/worker/podend"
	"github.com/podlife/podlife/podlife/internal/worker/podupdate"
	"github.com/podlife/podlife/podlife/internal/worker/status"
)

// ReasonEvicted is the kubelet's reason of an evicted pod and of its Warning event, also the
// event of a pod refused under disk pressure.
const ReasonEvicted Reason = eviction.Reason

// onContainerExit stops the pod once it has reached a terminal phase on its own (every container
// exited and none will restart), releasing its network as the kubelet does.
func (p *Worker) onContainerExit() {
	var terminal bool
	p.do(func() { terminal = p.phase == PhaseSucceeded || p.phase == PhaseFailed })
	if terminal && !p.host.IsClosed() {
		p.spawn(gStop, func() { p.stopWith(p.lifeCtx, GracePeriod(&p.spec), true, nil) })
	}
}

// completionPhaseOwned returns the phase to report for computed (see status.Completion), and
// starts the pod's stop if computed is terminal while a sidecar is still running (or waiting
// for its restart). It runs on the pod's loop.
func (p *Worker) completionPhaseOwned(computed Phase, inits, apps []ContainerStatus) Phase {
	phase, stop := status.Completion(computed, p.terminated, inits, apps, p.sidecars)
	if stop && !p.stopping && !p.completing {
		p.completing = true
		p.spawn(gStop, func() { p.stopWith(p.lifeCtx, GracePeriod(&p.spec), true, nil) })
	}
	return phase
}

// enforceDeadline fails the pod once it has been active longer than its active deadline (the
// spec's, or the one set on the running pod, followed as it changes: podend.WaitDeadline):
// event DeadlineExceeded, phase Failed with that reason, a graceful stop with preStop hooks,
// no restarts.
func (p *Worker) enforceDeadline() {
	if podend.WaitDeadline(p.host.Clock, p.startTime, p.activeDeadline, p.deadlineChanged, p.stopped, p.host.Closing) {
		const msg = "Pod was active on the node longer than the specified deadline"
		p.fail(EventNormal, ReasonDeadlineExceeded, msg, GracePeriod(&p.spec))
	}
}

// SetActiveDeadline sets the pod's active deadline while it runs (podlife's Pod.SetActiveDeadline;
// the rules are podupdate.CheckDeadlineUpdate's): enforceDeadline follows the change. It is kept
// beside the spec, which stays as started, in deadlineSet and pod.json (Record.ActiveDeadline),
// so that an adopter keeps it without seeing a changed spec (record.DeadlineUpdate).
func (p *Worker) SetActiveDeadline(d time.Duration) error {
	var err error
	if !p.do(func() {
		if err = podupdate.CheckDeadlineUpdate(p.name, p.activeDeadlineOwned(), d); err == nil {
			p.deadlineSet = &d
		}
	}) {
		return fmt.Errorf("set active deadline: pod %q: %w", p.name, ErrClosed)
	}
	if err != nil {
		return fmt.Errorf("set active deadline: %w", err)
	}
	select {
	case p.deadlineChanged <- struct{}{}:
	default: // a change is pending already: enforceDeadline reads the latest
	}
	if err := p.writeRecord(); err != nil {
		return fmt.Errorf("set active deadline: pod %q: in effect, but not recorded (an adopter would not keep it): %w", p.name, err)
	}
	return nil
}

// activeDeadline is the deadline in effect (see activeDeadlineOwned), read on the pod's loop,
// or once it ended, where it stays.
func (p *Worker) activeDeadline() (d *time.Duration) {
	p.onLoopOrAfter(func() { d = p.activeDeadlineOwned() })
	return d
}

// activeDeadlineOwned is the deadline in effect: the one set on the running pod, else the
// spec's. It runs on the pod's loop.
func (p *Worker) activeDeadlineOwned() *time.Duration {
	return cmp.Or(p.deadlineSet, p.spec.ActiveDeadline)
}

// enforceStorage evicts the pod, as the kubelet's eviction manager does, once its local
// storage is over one of its limits (podend.Storage.Watch), until the pod stops.
func (p *Worker) enforceStorage() {
	s := podend.Storage{Spec: &p.spec, VolumeDir: p.sandbox.VolumeDir, Dir: p.sandbox.Dir}
	for _, c := range append(append([]*Container{}, p.inits...), p.apps...) {
		s.Containers = append(s.Containers, podend.Container{Name: c.spec.Name, ID: c.ID})
	}
	if p.host.Ctrd != nil {
		s.Layer = p.host.Ctrd.SnapshotUsage
	}
	if d, ok := s.Watch(p.lifeCtx, p.host.Clock, p.host.Cfg.EvictionPeriod, p.stopped, p.host.Closing); ok {
		p.fail(EventWarning, ReasonEvicted, d.Message, eviction.Grace)
	}
}

// fail fails the pod with reason and msg (event typ) and stops it with grace, unless it is
// stopping or ended already.
func (p *Worker) fail(typ EventType, reason Reason, msg string, grace time.Duration) {
	var failed bool
	p.updateIf(func() bool {
		if failed = !p.stopping && p.phase != PhaseSucceeded && p.phase != PhaseFailed; failed {
			p.failReason, p.reason, p.message = reason, reason, msg
		}
		return failed
	})
	if failed {
		p.emit("", typ, reason, msg)
		p.stopWith(p.lifeCtx, grace, true, nil)
	}
}
