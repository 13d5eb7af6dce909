package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"fmt"
	"time"

	"github.com/podlife/podlife/podlife/internal/worker/podupdate"
)

// A running pod's activeDeadlineSeconds may be updated, as the API server allows it: set when it
// was unset, or shortened. The deadline set so (Pod.SetActiveDeadline) is kept beside the spec:
// in the worker (deadlineSet, the loop's) and in pod.json (Record.ActiveDeadline); the spec, its
// recorded form and its fingerprints stay those the pod started with, so that an adopter given
// either the spec as started or as updated neither reports a changed spec nor loses the deadline
// (record.DeadlineUpdate).

// SetActiveDeadline sets the pod's active deadline (activeDeadlineSeconds), counted from the
// pod's start as the spec's is: the one update of a running pod's spec the API server allows.
// d must be positive, and shorter than the deadline in effect, if any. enforceDeadline follows
// the change: a deadline already past fails the pod at once (DeadlineExceeded). The new deadline
// is recorded, so that an adopter keeps it.
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
func (p *Worker) activeDeadline() *time.Duration {
	var d *time.Duration
	p.onLoopOrAfter(func() { d = p.activeDeadlineOwned() })
	return d
}

// activeDeadlineOwned is the deadline in effect: the one set on the running pod, else the
// spec's. It runs on the pod's loop.
func (p *Worker) activeDeadlineOwned() *time.Duration {
	if p.deadlineSet != nil {
		return p.deadlineSet
	}
	return p.spec.ActiveDeadline
}
