package warmpool

import (
	"sync"
	"time"

	"github.com/podlife/podlife/podlife/internal/worker"
)

// makers is how many members are made at once, all pools together: the refill never takes
// more of the host than one pod start, so that user starts are not starved.
const makers = 1

// refillDelay is how long the refill waits, after the start of a pod taken from a pool,
// before it makes a member: a burst of takes and their starts run first.
const refillDelay = 25 * time.Millisecond

// refillAfterStart bounds how long the refill waits for the start of a pod taken from a
// pool.
const refillAfterStart = time.Second

// retryDelay is how long the refill waits after a member could not be made.
const retryDelay = 2 * time.Second

// refill makes the members the pools lack, makers at a time, until Close.
func (m *Manager) refill() {
	defer close(m.done)
	var running sync.WaitGroup
	defer running.Wait()
	for {
		select {
		case <-m.quit:
			return
		case <-m.kick:
		}
		// A burst of takes (user starts) goes first: the refill waits until the starts of the
		// pods taken are over, and refillDelay more without a take.
		for settled := false; !settled; {
			select {
			case <-m.quit:
				return
			case <-m.kick:
			case <-time.After(refillDelay):
				settled = !m.waitStarts()
			}
		}
		for {
			key, tmpl, ok := m.pools.Load().Next(makers)
			if !ok {
				break
			}
			running.Go(func() {
				SweepLinks(m.d.StateDir)
				m.settling.Add(1)
				defer m.settling.Add(-1)
				w, err := m.makeMember(key, tmpl.(*Template))
				if err != nil {
					if m.closed.Load() {
						m.pools.Load().Made(key, nil, false)
						return
					}
					m.d.Log.Warn("warm pool: a member could not be made; trying again later", "key", key, "err", err)
					tmpl.(*Template).failed.Store(&memberFailure{at: time.Now(), err: err})
					m.pools.Load().Made(key, nil, false)
					time.AfterFunc(retryDelay, m.wake)
					return
				}
				if !m.pools.Load().Made(key, w, true) {
					m.discardMember(w, "no longer wanted")
				}
				m.wake()
			})
		}
	}
}

// Close ends the refill and removes every ready member (Runtime.Close; before the runtime is
// marked closed, as removing a pod needs it open). It does nothing before Start or a second
// time.
func (m *Manager) Close() {
	if m.pools.Load() == nil || !m.closed.CompareAndSwap(false, true) {
		return
	}
	close(m.quit)
	m.making.Range(func(k, _ any) bool {
		k.(*worker.Worker).CancelMember()
		return true
	})
	<-m.done // every member being made is made (and kept) or discarded
	for _, w := range m.pools.Load().Close() {
		m.discardLater(w, "the runtime is closed")
	}
	m.discards.Wait()
	SweepLinks(m.d.StateDir)
}

// discardLater removes a member in the background; Close waits for it.
func (m *Manager) discardLater(w *worker.Worker, why string) {
	m.discards.Go(func() { m.discardMember(w, why) })
}
