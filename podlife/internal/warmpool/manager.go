package warmpool

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker"
)

// Deps is what the Runtime gives its Manager: plain values and functions, no back pointer.
type Deps struct {
	StateDir string
	Log      *slog.Logger
	Limit    int                 // the most members all pools may target together
	Host     func() *worker.Host // the Host a member's worker is made with
	// HoldLock keeps a member's adoption lock until its pod is removed.
	HoldLock func(w *worker.Worker, lock *os.File)
	// Register registers a taken member as the Runtime's pod (its control socket listening).
	Register func(w *worker.Worker) error
	// Unreserve gives back a pod name Run reserved.
	Unreserve func(name string)
	// Closing is closed when the Runtime begins to close.
	Closing <-chan struct{}
}

// Manager is a Runtime's warm pools and their refill (see Runtime.Prewarm); its zero value has
// none. Start gives it its Deps, on the first Prewarm.
type Manager struct {
	d      Deps
	once   sync.Once
	pools  atomic.Pointer[Pools[*worker.Worker]] // nil until Start
	kick   chan struct{}                         // wakes the refill
	quit   chan struct{}                         // closed by Close: the refill ends
	done   chan struct{}                         // closed when the refill has ended
	closed atomic.Bool
	// discards are the members being removed in the background (see discardLater).
	discards sync.WaitGroup
	// making are the members being made (their prewarm under way), which Close cancels:
	// a pull must not hold Close up.
	making sync.Map // *worker.Worker -> struct{}
	// settling counts the members made that the refill has not yet kept or removed: a Prewarm
	// that lowers a target waits for them.
	settling atomic.Int64
	// starting are the starts of pods taken from a pool (their Started channels) that the
	// refill waits for before it makes a member (afterStart, waitStarts).
	startingMu sync.Mutex
	starting   []<-chan struct{}
}

// Template is what makes a pool's members: an admitted spec, its recorded form and its
// runtime class.
type Template struct {
	Spec, Recorded api.PodSpec
	Class          tasks.Class
	failed         atomic.Pointer[memberFailure] // the last member that could not be made
}

type memberFailure struct {
	at  time.Time
	err error
}

// Start starts the pools and their refill with d, once: later calls do nothing.
func (m *Manager) Start(d Deps) {
	m.once.Do(func() {
		m.d = d
		m.kick, m.quit, m.done = make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
		m.pools.Store(New[*worker.Worker](d.Limit))
		go m.refill()
	})
}

// Prewarm sets key's target to n members of tmpl (Start called), removes the members beyond
// it and waits until n are ready (see Runtime.Prewarm).
func (m *Manager) Prewarm(ctx context.Context, key string, n int, tmpl *Template) error {
	drop, err := m.pools.Load().SetTarget(key, n, tmpl)
	if err != nil {
		return fmt.Errorf("prewarm: %w", err)
	}
	var dropped sync.WaitGroup
	for _, w := range drop {
		dropped.Go(func() { m.discardMember(w, "the pool's target was lowered") })
	}
	dropped.Wait()
	m.wake()
	return m.wait(ctx, key, n, tmpl)
}

// wait waits until key's pool has n members ready (or fewer wanted), or a member of tmpl
// could not be made.
func (m *Manager) wait(ctx context.Context, key string, n int, tmpl *Template) error {
	t0 := time.Now()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		st, ok := m.stat(key)
		switch {
		case !ok && m.settling.Load() == 0: // dropped, and no member of it is left
			return nil
		case ok && st.Ready >= min(n, st.Target) && (n > 0 || st.Making == 0):
			return nil
		}
		if f := tmpl.failed.Load(); f != nil && f.at.After(t0) {
			return fmt.Errorf("prewarm: a member could not be made (the refill tries again): %w", f.err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-m.d.Closing:
			return api.ErrClosed
		case <-tick.C:
		}
	}
}

func (m *Manager) stat(key string) (Stat, bool) {
	for _, s := range m.Stats() {
		if s.Key == key {
			return s, true
		}
	}
	return Stat{}, false
}

// Stats returns the counts of the pools, by key (none before Start).
func (m *Manager) Stats() []Stat {
	ps := m.pools.Load()
	if ps == nil {
		return nil
	}
	return ps.Stats()
}

// afterStart tells the refill of the start of a pod taken from a pool (started is closed once
// it is over) and wakes it: the refill waits for that start before it makes the member that
// replaces the one taken.
func (m *Manager) afterStart(started <-chan struct{}) {
	m.startingMu.Lock()
	m.starting = append(m.starting, started)
	m.startingMu.Unlock()
	m.wake()
}

// waitStarts waits until the starts afterStart was told of are over (each for
// refillAfterStart at most: a start policy may wait for readiness), or quit. It reports
// whether there were any.
func (m *Manager) waitStarts() bool {
	m.startingMu.Lock()
	starting := m.starting
	m.starting = nil
	m.startingMu.Unlock()
	if len(starting) == 0 {
		return false
	}
	t := time.NewTimer(refillAfterStart)
	defer t.Stop()
	for _, started := range starting {
		select {
		case <-started:
		case <-t.C:
			return true
		case <-m.quit:
			return true
		}
	}
	return true
}

func (m *Manager) wake() {
	select {
	case m.kick <- struct{}{}:
	default:
	}
}
