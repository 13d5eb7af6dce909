package eviction

import (
	"time"

	"github.com/podlife/podlife/internal/clock"
)

// Watch measures a pod's local storage every period, with measure, until it is over one of
// limits: it then returns the decision (Decide). It returns false once stopped or closing is
// closed (the pod stopped, or its Runtime closes).
func Watch(clk clock.Clock, period time.Duration, limits Limits, measure func() Usage, stopped, closing <-chan struct{}) (Decision, bool) {
	timer := clk.NewTimer(period)
	defer timer.Stop()
	for {
		select {
		case <-timer.C():
		case <-stopped:
			return Decision{}, false
		case <-closing:
			return Decision{}, false
		}
		if d, ok := Decide(limits, measure()); ok {
			return d, true
		}
		timer.Reset(period)
	}
}
