package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"bytes"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/podlife/podlife/podlife/internal/worker/status"
)

// owner is a pod's event loop: one goroutine that is the only code to read or write the pod's
// mutable state (its phase, conditions and stop flags, every container's instances and state,
// the sandbox's IP, the ephemeral containers). Every other goroutine (the start sequence, exit
// watchers, probe workers, hooks, restarts, the stop, API calls) hands it a closure with
// Pod.do or Pod.update and waits for it to have run, as net/http2's serverConn serve loop does;
// readers that need no decision read the immutable snapshot the loop publishes after every
// update (Pod.view).
//
// A closure runs on the loop: it must be short, do no I/O, call no user code, and never call
// do, update or anything that does (the loop would wait for itself; the package's tests panic
// instead). Blocking work (containerd, CNI, hooks, probes, files) runs outside, and reports back
// with another closure.
//
// The loop ends when the pod has been removed or the Runtime is closed. A closure handed to it
// after that is not run: do and update then return false, and the pod's last snapshot stays.
type owner struct {
	msgs     chan ownerMsg // unbuffered: a message received is run before the loop can end
	quit     chan struct{} // closed by endLoop
	quitOnce sync.Once
	done     chan struct{} // closed when the loop has ended
	gid      atomic.Uint64 // the loop's goroutine, in the package's tests (see checkNotOnLoop)
	snap     atomic.Pointer[snapshot]
}

type ownerMsg struct {
	f   func() bool // reports whether the state changed (the loop then publishes a snapshot)
	ran chan struct{}
}

// snapshot is what the loop published after a change. Nothing in it is written after it is
// published: readers share it.
type snapshot struct {
	status     PodStatus
	ctrs       map[*Container]ctrSnapshot
	ephemerals []*Container
	// notify is closed when a newer snapshot replaces this one.
	notify chan struct{}
}

type ctrSnapshot struct {
	status  ContainerStatus
	id      string
	logPath string
}

func newOwner() *owner {
	return &owner{msgs: make(chan ownerMsg), quit: make(chan struct{}), done: make(chan struct{})}
}

// runLoop is the pod's owner goroutine: it runs the closures handed to it, one at a time, and
// publishes a snapshot after each one that changed the state. It returns once the pod has been
// removed (endLoop) or the Runtime is closed.
func (p *Worker) runLoop() {
	o := p.owner
	defer close(o.done)
	if checkLoopReentry {
		o.gid.Store(goroutineID())
	}
	for {
		select {
		case m := <-o.msgs:
			if m.f() {
				p.publish()
			}
			close(m.ran)
		case <-o.quit:
			return
		case <-p.host.Closing:
			return
		}
	}
}

// endLoop ends the pod's loop (once its current closure has run) and waits for it.
func (p *Worker) endLoop() {
	p.owner.quitOnce.Do(func() { close(p.owner.quit) })
	<-p.owner.done
}

// do runs f on the pod's loop and returns once it has run; f reads or writes the pod's state
// but changes nothing its status shows (see update). It returns false, f not run, once the loop
// has ended.
func (p *Worker) do(f func()) bool {
	return p.send(func() bool { f(); return false })
}

// update runs f on the pod's loop like do, then recomputes the pod's phase and conditions,
// publishes the new snapshot and wakes every waiter (WaitFor), before it returns: a status read
// never sees a change without its consequences.
func (p *Worker) update(f func()) bool {
	return p.send(func() bool { f(); return true })
}

// updateIf is update when f reports a change, else do.
func (p *Worker) updateIf(f func() bool) bool { return p.send(f) }

func (p *Worker) send(f func() bool) bool {
	o := p.owner
	checkNotOnLoop(o)
	m := ownerMsg{f: f, ran: make(chan struct{})}
	select {
	case o.msgs <- m:
	case <-o.done:
		return false
	}
	<-m.ran
	return true
}

// publish recomputes the phase and conditions from the state just changed and publishes a new
// snapshot. It runs on the loop (or in New, before the loop starts).
func (p *Worker) publish() {
	inits, apps := p.statusesOwned(p.inits), p.statusesOwned(p.apps)
	switch {
	case p.failReason != "" && p.terminated:
		p.phase = PhaseFailed
	case p.phase != PhaseSucceeded && p.phase != PhaseFailed || p.stopping:
		p.phase = p.completionPhaseOwned(status.ComputePhase(p.restartsByName, p.terminated, inits, apps, p.sidecars), inits, apps)
	}
	p.conditions = p.conditionsOwned(inits, apps)
	s := &snapshot{notify: make(chan struct{}), ephemerals: slices.Clip(slices.Clone(p.ephemerals)),
		ctrs: make(map[*Container]ctrSnapshot, len(p.byName)+len(p.ephemerals))}
	s.status = PodStatus{Name: p.name, Phase: p.phase, Reason: p.reason, Message: p.message,
		PodIP: p.podIP, StartTime: p.startTime, Stopping: p.stopping,
		Conditions: slices.Clone(p.conditions), ContainerStatuses: apps}
	if len(p.inits) > 0 {
		s.status.InitContainerStatuses = inits
	}
	if len(p.ephemerals) > 0 {
		s.status.EphemeralContainerStatuses = p.statusesOwned(p.ephemerals)
	}
	add := func(cs []*Container, sts []ContainerStatus) {
		for i, c := range cs {
			cs := ctrSnapshot{status: sts[i]}
			if c.cur != nil {
				cs.id, cs.logPath = c.cur.id, c.cur.logPath
			}
			s.ctrs[c] = cs
		}
	}
	add(p.inits, inits)
	add(p.apps, apps)
	add(p.ephemerals, s.status.EphemeralContainerStatuses)
	old := p.owner.snap.Swap(s)
	if old != nil {
		close(old.notify)
	}
}

// view returns the pod's last published snapshot (nil for a pod whose loop never ran: a test's
// bare Pod).
func (p *Worker) view() *snapshot {
	if p.owner == nil {
		return nil
	}
	return p.owner.snap.Load()
}

// checkLoopReentry makes checkNotOnLoop check. Only the package's test binary sets it (in an
// init function of owner_internal_test.go): the check parses stack traces.
var checkLoopReentry = false

// checkNotOnLoop panics, when checkLoopReentry is set, if a closure running on the loop hands
// the loop another closure: it would wait for itself for ever.
func checkNotOnLoop(o *owner) {
	if !checkLoopReentry {
		return
	}
	if id := o.gid.Load(); id != 0 && id == goroutineID() {
		panic("podlife: a closure running on the pod's loop called do or update (it would wait for itself)")
	}
}

// goroutineID is the current goroutine's number (for checkNotOnLoop: it parses a stack trace).
func goroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	n, _ := strconv.ParseUint(string(b), 10, 64)
	return n
}
