package podend

import (
	"time"

	"github.com/podlife/podlife/internal/clock"
)

// WaitDeadline waits until the pod, started at start, has been active longer than its active
// deadline in effect (true), or it stopped or the Runtime closes (false). current reads the
// deadline in effect (nil: none yet); it is read again after each signal on changed, so that a
// deadline set or shortened on the running pod is followed, and one already past is due at
// once.
func WaitDeadline(clk clock.Clock, start time.Time, current func() *time.Duration, changed, stopped, closing <-chan struct{}) bool {
	for {
		due, again := waitDeadline(clk, start, current(), changed, stopped, closing)
		if due || !again {
			return due
		}
	}
}

// waitDeadline waits until the deadline d passes (due), or it changes (changed), or the pod
// stops or the Runtime closes (neither). Without a deadline it waits for one to be set.
func waitDeadline(clk clock.Clock, start time.Time, d *time.Duration, changed, stopped, closing <-chan struct{}) (due, again bool) {
	var fire <-chan time.Time
	if d != nil {
		timer := clk.NewTimer(start.Add(*d).Sub(clk.Now()))
		defer timer.Stop()
		fire = timer.C()
	}
	select {
	case <-fire:
		return true, false
	case <-changed:
		return false, true
	case <-stopped:
	case <-closing:
	}
	return false, false
}
