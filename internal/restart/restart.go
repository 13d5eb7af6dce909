// Package restart tracks the kubelet's crash-loop back-off (CrashLoopBackOff)
// for restarting containers.
//
// The kubelet keeps one back-off entry per container (keyed by pod, container
// name and container hash) holding the current delay and the time of its last
// update. Each time it is about to restart an exited container it looks at
// that container's finishedAt:
//
//   - The container is in back-off if the entry exists, has not expired, and
//     now − finishedAt < the entry's delay. The start fails with
//     CrashLoopBackOff ("back-off 40s restarting failed container=C pod=P")
//     and is retried when the delay has passed.
//   - Otherwise the entry is advanced (created with the initial delay, or
//     doubled up to the cap) and the container is restarted now.
//
// An entry expires when more than the reset duration (600s) separates its
// last update from the new finishedAt, that is when the container ran for
// more than 10 minutes: the sequence then starts over.
//
// For a container that crashes as soon as it starts, with the default
// [Config], the restarts therefore come immediately, then 10s, 20s, 40s, 80s,
// 160s, 300s, 300s, ... after each crash.
//
// All state is in memory, as in the kubelet.
//
// Of this repository it imports only internal/clock. It must not import package podlife, which
// builds on it.
package restart

import (
	"fmt"
	"sync"
	"time"

	"github.com/podlife/podlife/internal/clock"
)

// The kubelet's defaults (MaxContainerBackOff and friends), applied by
// [Config.WithDefaults] to zero fields.
const (
	DefaultInitial    = 10 * time.Second
	DefaultMax        = 300 * time.Second
	DefaultResetAfter = 600 * time.Second
)

// Config sets the back-off curve. Zero (or negative) fields take the
// kubelet's defaults.
type Config struct {
	// Initial is the first non-zero delay (default 10s).
	Initial time.Duration
	// Max caps the delay (default 300s). A Max below Initial lowers Initial
	// to Max, as the kubelet's crashLoopBackOff.maxContainerRestartPeriod
	// does.
	Max time.Duration
	// ResetAfter is how long a container must run (from the entry's last
	// update to its finishedAt) for its back-off to start over (default
	// 600s).
	ResetAfter time.Duration
}

// WithDefaults returns c with the defaults in its zero or negative fields,
// and Initial lowered to Max if it exceeds it.
func (c Config) WithDefaults() Config {
	if c.Initial <= 0 {
		c.Initial = DefaultInitial
	}
	if c.Max <= 0 {
		c.Max = DefaultMax
	}
	if c.ResetAfter <= 0 {
		c.ResetAfter = DefaultResetAfter
	}
	c.Initial = min(c.Initial, c.Max)
	return c
}

// Tracker is the crash-loop back-off of a set of containers, each identified
// by a caller-chosen key. Like the kubelet's, the key should change when the
// container's definition does (include the pod UID and a hash of the
// container spec), so that a changed container starts afresh. A Tracker is
// safe for concurrent use.
type Tracker struct {
	cfg   Config
	clock clock.Clock

	mu      sync.Mutex
	entries map[string]entry
}

type entry struct {
	delay      time.Duration // the current back-off
	lastUpdate time.Time     // when delay was last advanced
}

// New returns a Tracker with cfg (defaults applied) that reads the time from
// clk, or from the real clock if clk is nil.
func New(cfg Config, clk clock.Clock) *Tracker {
	return &Tracker{cfg: cfg.WithDefaults(), clock: clock.OrReal(clk), entries: map[string]entry{}}
}

// Config returns the tracker's configuration, with defaults applied.
func (t *Tracker) Config() Config { return t.cfg }

// Next is called when the container key, which exited at finishedAt, should
// be restarted. It returns how long to wait from now before restarting it:
//
//   - If the container is in back-off (see [Tracker.InBackOff]) Next returns
//     the remaining time and changes nothing; the caller should report
//     CrashLoopBackOff (see [Message]) and call Next again once that time
//     has passed.
//   - Otherwise Next advances the entry (to Initial for a new or expired
//     entry, or doubling it up to Max) and returns 0: restart now.
//
// Hence, for a container that keeps crashing at once, Next returns 0, then
// Initial (10s) after the second crash, then 2×Initial, 4×Initial, ... up to
// Max, each measured from finishedAt; each time, calling Next again after the
// wait returns 0 and restarts the container.
func (t *Tracker) Next(key string, finishedAt time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.clock.Now()
	if in, remaining := t.inBackOff(key, finishedAt, now); in {
		return remaining
	}
	e, ok := t.entries[key]
	if !ok || t.expired(e, finishedAt) {
		e.delay = t.cfg.Initial
	} else {
		e.delay = min(2*e.delay, t.cfg.Max)
	}
	e.lastUpdate = now
	t.entries[key] = e
	return 0
}

// InBackOff reports whether the container key, which exited at finishedAt,
// is in back-off, and if so for how much longer: the entry exists, has not
// expired (finishedAt is at most ResetAfter after the entry's last update),
// and less than the entry's delay has passed since finishedAt. It changes
// nothing (the kubelet's IsInBackOffSince).
func (t *Tracker) InBackOff(key string, finishedAt time.Time) (bool, time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.inBackOff(key, finishedAt, t.clock.Now())
}

func (t *Tracker) inBackOff(key string, finishedAt, now time.Time) (bool, time.Duration) {
	e, ok := t.entries[key]
	if !ok || t.expired(e, finishedAt) {
		return false, 0
	}
	if elapsed := now.Sub(finishedAt); elapsed < e.delay {
		return true, e.delay - elapsed
	}
	return false, 0
}

// expired reports whether e is too old to count for an event at eventTime.
func (t *Tracker) expired(e entry, eventTime time.Time) bool {
	return eventTime.Sub(e.lastUpdate) > t.cfg.ResetAfter
}

// Delay returns the current back-off delay of key, the one that [Message]
// reports, or 0 if key has no entry.
func (t *Tracker) Delay(key string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.entries[key].delay
}

// Reset forgets key, so that its next restart is immediate. Call it when a
// container is removed for good, so that the Tracker does not grow.
func (t *Tracker) Reset(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.entries, key)
}

// GC forgets the entries last updated more than ResetAfter ago, as the
// kubelet does periodically. Their containers restart immediately next time.
func (t *Tracker) GC() {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.clock.Now()
	for k, e := range t.entries {
		if now.Sub(e.lastUpdate) > t.cfg.ResetAfter {
			delete(t.entries, k)
		}
	}
}

// Len returns the number of containers tracked.
func (t *Tracker) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.entries)
}

// Message returns the kubelet's CrashLoopBackOff message (the container's
// waiting message), such as
// "back-off 40s restarting failed container=app pod=web_default(uid)".
// delay is the current back-off ([Tracker.Delay]), not the time remaining;
// pod is formatted by the caller (the kubelet uses "name_namespace(uid)").
func Message(delay time.Duration, container, pod string) string {
	return fmt.Sprintf("back-off %s restarting failed container=%s pod=%s", delay, container, pod)
}

// EventMessage returns the message of the kubelet's Warning BackOff event,
// "Back-off restarting failed container C in pod P".
func EventMessage(container, pod string) string {
	return fmt.Sprintf("Back-off restarting failed container %s in pod %s", container, pod)
}

// State returns key's back-off entry: the current delay and when it was last advanced (zero
// values if key has no entry). A process that persists it can hand it to [Tracker.Restore] in a
// later Tracker (another process taking over the container).
func (t *Tracker) State(key string) (delay time.Duration, lastUpdate time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.entries[key]
	return e.delay, e.lastUpdate
}

// Restore sets key's entry as [Tracker.State] returned it. A zero delay forgets key.
func (t *Tracker) Restore(key string, delay time.Duration, lastUpdate time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if delay <= 0 {
		delete(t.entries, key)
		return
	}
	t.entries[key] = entry{delay: min(delay, t.cfg.Max), lastUpdate: lastUpdate}
}
