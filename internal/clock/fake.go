package clock

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Fake is a manual [Clock] for tests. Time stands still until [Fake.Advance]
// moves it; timers fire, in deadline order, only as Advance passes their
// deadline. A Fake is safe for concurrent use.
//
// Advance fires only the timers that exist when it runs: a goroutine that
// reacts to a tick by arming a new timer does so after Advance has returned.
// Tests that step a timer loop therefore alternate Advance with
// [Fake.BlockUntil], which waits for the loop to arm its next timer.
type Fake struct {
	mu     sync.Mutex
	now    time.Time
	seq    uint64        // creation counter, to break deadline ties
	timers []*fakeTimer  // the active timers, unordered
	change chan struct{} // closed and replaced when timers changes
}

// NewFake returns a Fake clock that reads now.
func NewFake(now time.Time) *Fake {
	return &Fake{now: now, change: make(chan struct{})}
}

// Now returns the fake current time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// NewTimer returns a timer that fires when the fake time reaches Now()+d;
// a d of zero or less fires at once.
func (f *Fake) NewTimer(d time.Duration) Timer {
	t := &fakeTimer{f: f, c: make(chan time.Time, 1)}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.arm(t, d)
	return t
}

// Advance moves the fake time forward by d, firing in deadline order every
// timer whose deadline is reached; each fired timer sees Now() equal to its
// deadline. A negative d is treated as zero.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	target := f.now.Add(max(d, 0))
	for {
		i := f.earliest()
		if i < 0 || f.timers[i].when.After(target) {
			break
		}
		t := f.timers[i]
		f.now = t.when
		f.remove(t)
		t.fire(f.now)
	}
	f.now = target
}

// Timers returns the number of active (armed, not yet fired or stopped)
// timers.
func (f *Fake) Timers() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.timers)
}

// BlockUntil waits until at least n timers are active, or until ctx is done,
// in which case it returns ctx.Err().
func (f *Fake) BlockUntil(ctx context.Context, n int) error {
	for {
		f.mu.Lock()
		ok, change := len(f.timers) >= n, f.change
		f.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-change:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// arm schedules t after d, firing it at once if d <= 0. f.mu must be held.
func (f *Fake) arm(t *fakeTimer, d time.Duration) {
	if d <= 0 {
		t.fire(f.now)
		return
	}
	f.seq++
	t.when, t.seq, t.active = f.now.Add(d), f.seq, true
	f.timers = append(f.timers, t)
	f.changed()
}

// remove deactivates t. It reports whether t was active. f.mu must be held.
func (f *Fake) remove(t *fakeTimer) bool {
	if !t.active {
		return false
	}
	t.active = false
	f.timers = slices.DeleteFunc(f.timers, func(u *fakeTimer) bool { return u == t })
	f.changed()
	return true
}

// earliest returns the index of the timer due first, or -1. f.mu must be held.
func (f *Fake) earliest() int {
	best := -1
	for i, t := range f.timers {
		if b := best; b < 0 || t.when.Before(f.timers[b].when) ||
			(t.when.Equal(f.timers[b].when) && t.seq < f.timers[b].seq) {
			best = i
		}
	}
	return best
}

// changed wakes the BlockUntil callers. f.mu must be held.
func (f *Fake) changed() {
	close(f.change)
	f.change = make(chan struct{})
}

type fakeTimer struct {
	f      *Fake
	c      chan time.Time
	when   time.Time
	seq    uint64
	active bool // guarded by f.mu
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }

func (t *fakeTimer) Stop() bool {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	t.drain()
	return t.f.remove(t)
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	t.drain()
	was := t.f.remove(t)
	t.f.arm(t, d)
	return was
}

// fire delivers now without blocking. The channel holds one value; Stop and
// Reset drain it, so a value is dropped only if a fired timer is re-armed
// without Reset, which the API does not allow.
func (t *fakeTimer) fire(now time.Time) {
	select {
	case t.c <- now:
	default:
	}
}

// drain discards an undelivered value, as Go 1.23 timers do on Stop and Reset.
func (t *fakeTimer) drain() {
	select {
	case <-t.c:
	default:
	}
}
