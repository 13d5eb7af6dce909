package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"time"
)

// onContainerExit stops the pod once it has reached a terminal phase on its own (every container
// exited and none will restart), releasing its network as the kubelet does.
func (p *Worker) onContainerExit() {
	var terminal bool
	p.do(func() { terminal = p.phase == PhaseSucceeded || p.phase == PhaseFailed })
	if terminal && !p.host.IsClosed() {
		p.spawn(gStop, func() { p.stopWith(p.lifeCtx, GracePeriod(&p.spec), true, nil) })
	}
}

// enforceDeadline fails the pod once it has been active longer than its active deadline (the
// spec's, or the one set on the running pod: see deadline.go, followed as it changes): event
// DeadlineExceeded, phase Failed with that reason, a graceful stop with preStop hooks, no restarts.
func (p *Worker) enforceDeadline() {
	for {
		due, changed := p.waitDeadline()
		if due {
			break
		}
		if !changed {
			return
		}
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
	p.stopWith(p.lifeCtx, GracePeriod(&p.spec), true, nil)
}

// waitDeadline waits until the active deadline in effect passes (due), or it changes
// (changed), or the pod stops or the Runtime closes (neither). Without a deadline it waits for
// one to be set.
func (p *Worker) waitDeadline() (due, changed bool) {
	var fire <-chan time.Time
	if d := p.activeDeadline(); d != nil {
		timer := p.host.Clock.NewTimer(p.startTime.Add(*d).Sub(p.host.Clock.Now()))
		defer timer.Stop()
		fire = timer.C()
	}
	select {
	case <-fire:
		return true, false
	case <-p.deadlineChanged:
		return false, true
	case <-p.stopped:
	case <-p.host.Closing:
	}
	return false, false
}
