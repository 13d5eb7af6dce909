// Package clock abstracts the passage of time so that timing logic (probe
// periods, crash-loop back-off) can be tested deterministically.
//
// [Real] is the wall clock; [Fake] is a manual clock for tests whose timers
// fire only when [Fake.Advance] moves time past their deadline.
//
// It imports nothing of this repository and must not: probe, internal/restart and package podlife
// build on it.
package clock

import "time"

// Clock tells the time and makes timers.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// NewTimer returns a timer that sends the current time on its channel
	// once d has elapsed. A d of zero or less fires at once.
	NewTimer(d time.Duration) Timer
}

// Timer is a single-shot timer, as [time.Timer]. As with Go 1.23 timers, no
// stale value can be received after Stop or Reset returns.
type Timer interface {
	// C returns the channel on which the timer delivers its time.
	C() <-chan time.Time
	// Stop prevents the timer from firing. It reports whether the call
	// stopped the timer, false if it had already fired or been stopped.
	Stop() bool
	// Reset changes the timer to fire after d. It reports whether the timer
	// had been active.
	Reset(d time.Duration) bool
}

// Real is the [Clock] of package time. Its zero value is ready to use.
type Real struct{}

// Now returns [time.Now].
func (Real) Now() time.Time { return time.Now() }

// NewTimer returns a [time.NewTimer].
func (Real) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time        { return r.t.C }
func (r realTimer) Stop() bool                 { return r.t.Stop() }
func (r realTimer) Reset(d time.Duration) bool { return r.t.Reset(d) }

// OrReal returns c, or [Real] if c is nil.
func OrReal(c Clock) Clock {
	if c == nil {
		return Real{}
	}
	return c
}
