package worker

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/podlife/podlife/hook"
)

// The worker's goroutines: every goroutine a Worker starts for its pod is started with
// spawn(what, fn), counted under its name while it runs, and awaited: Remove returns once none
// is left (but the caller's own: a hook that removes its own pod), AwaitAbandoned (the
// Runtime's close) waits for them until its deadline, and the stop waits for the restarts and
// the ephemeral containers' starts in flight (awaitRestarts). A Worker that was removed has none
// left. A goroutine of the group that awaits it does not wait for itself: each one's goroutine
// number is noted when it starts (goroutineID, as owner.go's checks do).
//
// The one exception is user Go code that ignores its context: a lifecycle hook written in Go
// (hook.HandlerFunc, or a Handler of another package than podlife/hook) that outlives its
// deadline, or a start policy that does not return after the stop cancelled it. The worker
// abandons it, with a Warning event (runHook, awaitStartSequence): release then
// takes its goroutine out of what is awaited, and Goroutines reports it as abandoned until it
// returns. The hooks of package hook are never released: an exec hook's process is killed
// through containerd when its context ends, an HTTP hook's request has its context, a sleep
// returns; so they end, and are awaited.
//
// The group's mutex guards only the group's own bookkeeping (which goroutines run), never the
// pod's state, which is the loop's (owner.go).

// Names of the worker's goroutines (what spawn counts them by).
const (
	gLoop        = "loop"          // the owner loop (runLoop)
	gStart       = "start"         // the start sequence (run)
	gPrepare     = "prepare"       // one container's preparation in the start sequence
	gNetwork     = "network"       // the network attach in the start sequence
	gSetupWatch  = "setup-watch"   // the start sequence's watch of the setup failures
	gFailedStart = "failed-start"  // the removal of a pod whose start failed
	gStatus      = "status-writer" // persistStatus
	gDeadline    = "deadline"      // enforceDeadline
	gStorage     = "storage"       // enforceStorage
	gStop        = "stop"          // a stop (stopWith; the first one runs it, the others wait)
	gRemove      = "remove"        // the removal (Remove)
	gRestart     = "restart"       // a restart of a container (back-off, create, start)
	gRestartAll  = "restart-all"   // a restart of all the pod's containers
	gEphemeral   = "ephemeral"     // an ephemeral container's creation and start
	gExitWatch   = "exit-watch"    // an instance's exit watcher (watchExit)
	gPauseWatch  = "pause-watch"   // the pause's exit watcher (watchPause)
	gHook        = "hook"          // a lifecycle hook's handler (runHook)
	gProbes      = "probes"        // an instance's probe workers and their kills (probing.Set)
	gMemberExit  = "member-exit"   // a warm pool member's watch of a created process (WatchMember)
	gWarmEtc     = "warm-etc"      // a taken member's /etc files and hostname (ClaimMember)
	gRelabel     = "relabel"       // a taken member's containerd labels, after its start
	gRecordSync  = "record-sync"   // a taken member's first record's sync (pool_record.go)
	gPostStart   = "poststart"     // an adopted pod's interrupted postStart, failed
)

// group is the set of a Worker's goroutines (see the top of this file).
type group struct {
	mu      sync.Mutex
	members map[*member]struct{}
	changed chan struct{} // closed (and replaced) when a goroutine ends or is released
}

// member is one goroutine of a group.
type member struct {
	what     string
	gid      uint64 // the goroutine's number, once it runs (for await's caller)
	released bool   // abandoned: no longer awaited
}

func newGroup() *group {
	return &group{members: map[*member]struct{}{}, changed: make(chan struct{})}
}

// spawn runs fn in a new goroutine of the pod's group, counted as what until it returns.
func (p *Worker) spawn(what string, fn func()) *member {
	g := p.goroutines
	m := &member{what: what}
	g.mu.Lock()
	g.members[m] = struct{}{}
	g.mu.Unlock()
	go func() {
		defer g.end(m)
		id := goroutineID()
		g.mu.Lock()
		m.gid = id
		g.mu.Unlock()
		fn()
	}()
	return m
}

func (g *group) end(m *member) {
	g.mu.Lock()
	delete(g.members, m)
	g.notifyLocked()
	g.mu.Unlock()
}

func (g *group) notifyLocked() {
	close(g.changed)
	g.changed = make(chan struct{})
}

// release takes m out of what the group awaits: user code that ignores its context, abandoned
// (see the top of this file). It stays counted as abandoned until it returns.
func (g *group) release(m *member) {
	g.mu.Lock()
	if _, ok := g.members[m]; ok && !m.released {
		m.released = true
		g.notifyLocked()
	}
	g.mu.Unlock()
}

// releaseNamed releases the live goroutines named what.
func (g *group) releaseNamed(what string) {
	g.mu.Lock()
	for m := range g.members {
		if m.what == what && !m.released {
			m.released = true
		}
	}
	g.notifyLocked()
	g.mu.Unlock()
}

// await waits until no goroutine of the group is left but released ones and the caller's own
// (a goroutine of the group that awaits it), or stop is closed; it reports whether none was
// left. With names, it awaits only the goroutines of those names.
func (g *group) await(stop <-chan struct{}, names ...string) bool {
	self := goroutineID()
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

// counts returns the number of live goroutines (awaited) and of abandoned ones (released),
// by name.
func (g *group) counts() (live, abandoned map[string]int) {
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

// Goroutines returns the goroutines the worker started that still run, by name: live ones
// (awaited by Remove and AwaitAbandoned) and abandoned ones (user code that ignores its
// context: see group.go). After Remove, live is empty.
func (p *Worker) Goroutines() (live, abandoned map[string]int) { return p.goroutines.counts() }

// describeGoroutines renders counts as "name=n, ..." (for a log).
func describeGoroutines(counts map[string]int) string {
	var b strings.Builder
	for _, n := range slices.Sorted(maps.Keys(counts)) {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%d", n, counts[n])
	}
	return b.String()
}

// endsWithContext reports whether h is one of package hook's handlers (exec, httpGet, sleep),
// which return once their context ends; a Go handler (hook.HandlerFunc, or a Handler of another
// package) may not.
func endsWithContext(h hook.Handler) bool {
	if _, ok := h.(hook.HandlerFunc); ok {
		return false
	}
	t := reflect.TypeOf(h)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t != nil && t.PkgPath() == reflect.TypeFor[hook.HandlerFunc]().PkgPath()
}
