package warmpool

import (
	"errors"
	"fmt"
	"sort"
	"sync"
)

// ErrLimit is returned by SetTarget when the targets of all pools would exceed the limit.
var ErrLimit = errors.New("warm pool limit")

// Pools are the warm pools of one Runtime: per key, a target, the members ready (oldest
// first) and how many are being made. M is the member (package podlife's). Its methods are
// safe for concurrent use; none blocks.
type Pools[M comparable] struct {
	mu     sync.Mutex
	limit  int // the most members all pools may target together
	making int // members being made, all pools together
	pools  map[string]*pool[M]
	closed bool
}

type pool[M comparable] struct {
	target int
	ready  []M
	making int
	tmpl   any // what makes a member of this key (package podlife's spec)
}

// New returns empty pools whose targets may add up to limit members.
func New[M comparable](limit int) *Pools[M] {
	return &Pools[M]{limit: limit, pools: map[string]*pool[M]{}}
}

// SetTarget sets how many members of key to keep ready (0 drops the pool) and what makes them
// (tmpl). It returns the members to discard (ready beyond the new target), or an error
// wrapping ErrLimit.
func (ps *Pools[M]) SetTarget(key string, n int, tmpl any) ([]M, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.closed {
		return nil, errors.New("warm pool closed")
	}
	total := n
	for k, p := range ps.pools {
		if k != key {
			total += p.target
		}
	}
	if total > ps.limit {
		return nil, fmt.Errorf("%w: %d members targeted in all, at most %d", ErrLimit, total, ps.limit)
	}
	p := ps.pools[key]
	if p == nil {
		p = &pool[M]{}
		ps.pools[key] = p
	}
	p.target, p.tmpl = n, tmpl
	var drop []M
	if len(p.ready) > n {
		drop = append(drop, p.ready[n:]...)
		p.ready = p.ready[:n]
	}
	if n == 0 && p.making == 0 {
		delete(ps.pools, key)
	}
	return drop, nil
}

// Take removes a ready member of key, the oldest, and reports whether there was one.
func (ps *Pools[M]) Take(key string) (M, bool) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var zero M
	p := ps.pools[key]
	if p == nil || len(p.ready) == 0 {
		return zero, false
	}
	m := p.ready[0]
	p.ready = p.ready[1:]
	return m, true
}

// Next picks a pool that needs a member and counts one as being made, unless maxMaking are
// already being made: it returns the key and template, or ok false.
func (ps *Pools[M]) Next(maxMaking int) (key string, tmpl any, ok bool) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.closed || ps.making >= maxMaking {
		return "", nil, false
	}
	keys := make([]string, 0, len(ps.pools))
	for k := range ps.pools {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// The pool furthest below its target first.
	best, gap := "", 0
	for _, k := range keys {
		p := ps.pools[k]
		if g := p.target - len(p.ready) - p.making; g > gap {
			best, gap = k, g
		}
	}
	if best == "" {
		return "", nil, false
	}
	p := ps.pools[best]
	p.making++
	ps.making++
	return best, p.tmpl, true
}

// Made ends a make Next counted: with ok, m joins key's ready members if the pool still wants
// it (Made reports whether it did: if not, the caller discards m).
func (ps *Pools[M]) Made(key string, m M, ok bool) bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.making--
	p := ps.pools[key]
	if p == nil {
		return false
	}
	p.making--
	keep := ok && !ps.closed && len(p.ready)+p.making < p.target
	if keep {
		p.ready = append(p.ready, m)
	}
	if p.target == 0 && p.making == 0 && len(p.ready) == 0 {
		delete(ps.pools, key)
	}
	return keep
}

// Remove takes m out of key's ready members (a member found dead, or made of an old image) and
// reports whether it was there.
func (ps *Pools[M]) Remove(key string, m M) bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p := ps.pools[key]
	if p == nil {
		return false
	}
	for i, r := range p.ready {
		if r == m {
			p.ready = append(p.ready[:i:i], p.ready[i+1:]...)
			return true
		}
	}
	return false
}

// Close ends the pools: no member is made or kept from now on; it returns the ready members,
// for the caller to discard.
func (ps *Pools[M]) Close() []M {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.closed = true
	var out []M
	for _, p := range ps.pools {
		out = append(out, p.ready...)
		p.ready, p.target = nil, 0
	}
	return out
}

// Stat is one pool's counts.
type Stat struct {
	Key                   string
	Target, Ready, Making int
}

// Stats returns every pool's counts, by key.
func (ps *Pools[M]) Stats() []Stat {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	out := make([]Stat, 0, len(ps.pools))
	for k, p := range ps.pools {
		out = append(out, Stat{Key: k, Target: p.target, Ready: len(p.ready), Making: p.making})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}
