package goroutines

import (
	"bytes"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Group is a set of goroutines, each started by Go under a name, counted while it runs, and
// awaited (Await). A goroutine of the group that awaits it does not wait for itself: each
// one's goroutine number is noted when it starts (ID). Release takes one out of what is
// awaited: user code that ignores its context, abandoned; it is counted as abandoned until it
// returns. The group's mutex guards only its own bookkeeping.
type Group struct {
	mu      sync.Mutex
	members map[*Member]struct{}
	changed chan struct{} // closed (and replaced) when a goroutine ends or is released
}

// Member is one goroutine of a Group.
type Member struct {
	what     string
	gid      uint64 // the goroutine's number, once it runs (for Await's caller)
	released bool   // abandoned: no longer awaited
}

// NewGroup returns an empty group.
func NewGroup() *Group {
	return &Group{members: map[*Member]struct{}{}, changed: make(chan struct{})}
}

// Go runs fn in a new goroutine of the group, counted as what until it returns.
func (g *Group) Go(what string, fn func()) *Member {
	m := &Member{what: what}
	g.mu.Lock()
	g.members[m] = struct{}{}
	g.mu.Unlock()
	go func() {
		defer g.end(m)
		id := ID()
		g.mu.Lock()
		m.gid = id
		g.mu.Unlock()
		fn()
	}()
	return m
}

func (g *Group) end(m *Member) {
	g.mu.Lock()
	delete(g.members, m)
	g.notifyLocked()
	g.mu.Unlock()
}

func (g *Group) notifyLocked() {
	close(g.changed)
	g.changed = make(chan struct{})
}

// Release takes m out of what the group awaits: user code that ignores its context, abandoned.
// It stays counted as abandoned until it returns.
func (g *Group) Release(m *Member) {
	g.mu.Lock()
	if _, ok := g.members[m]; ok && !m.released {
		m.released = true
		g.notifyLocked()
	}
	g.mu.Unlock()
}

// ReleaseNamed releases the live goroutines named what.
func (g *Group) ReleaseNamed(what string) {
	g.mu.Lock()
	for m := range g.members {
		if m.what == what && !m.released {
			m.released = true
		}
	}
	g.notifyLocked()
	g.mu.Unlock()
}

// Await waits until no goroutine of the group is left but released ones and the caller's own
// (a goroutine of the group that awaits it), or stop is closed; it reports whether none was
// left. With names, it awaits only the goroutines of those names.
func (g *Group) Await(stop <-chan struct{}, names ...string) bool {
	self := ID()
	for {
		g.mu.Lock()
		left := 0
		for m := range g.members {
			if !m.released && m.gid != self && (len(names) == 0 || slices.Contains(names, m.what)) {
				left++
			}
		}
		changed := g.changed
		g.mu.Unlock()
		if left == 0 {
			return true
		}
		select {
		case <-changed:
		case <-stop:
			return false
		}
	}
}

// Counts returns the number of live goroutines (awaited) and of abandoned ones (released),
// by name.
func (g *Group) Counts() (live, abandoned map[string]int) {
	live, abandoned = map[string]int{}, map[string]int{}
	g.mu.Lock()
	defer g.mu.Unlock()
	for m := range g.members {
		if m.released {
			abandoned[m.what]++
		} else {
			live[m.what]++
		}
	}
	return live, abandoned
}

// Describe renders counts as "name=n, ..." (for a log).
func Describe(counts map[string]int) string {
	var b strings.Builder
	for _, n := range slices.Sorted(maps.Keys(counts)) {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%d", n, counts[n])
	}
	return b.String()
}

// ID is the current goroutine's number, parsed from a stack trace (for Await, and for
// ownerloop's re-entry check).
func ID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	n, _ := strconv.ParseUint(string(b), 10, 64)
	return n
}
