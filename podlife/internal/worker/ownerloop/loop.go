package ownerloop

import (
	"sync"
	"sync/atomic"

	"github.com/podlife/podlife/podlife/internal/worker/goroutines"
)

// Loop is one owner's event loop: Run is the one goroutine that reads or writes the owner's
// mutable state. Other goroutines hand it closures (Do, Update, UpdateIf) and wait for them to
// have run, as net/http2's serverConn serve loop does; readers that need no decision read the
// immutable snapshot of type S last published (Load).
//
// A closure runs on the loop: it must be short, do no I/O, call no user code, and never hand
// the loop another closure (it would wait for itself; with EnableReentryCheck it panics
// instead). Blocking work runs outside, and reports back with another closure.
//
// The loop ends when End is called or Run's closing channel is closed. A closure handed to it
// after that is not run: Do, Update and UpdateIf then return false, and the last snapshot
// stays.
type Loop[S any] struct {
	msgs     chan msg      // unbuffered: a message received is run before the loop can end
	quit     chan struct{} // closed by End
	quitOnce sync.Once
	done     chan struct{} // closed when the loop has ended
	gid      atomic.Uint64 // the loop's goroutine, with EnableReentryCheck (see checkNotOnLoop)
	snap     atomic.Pointer[S]
}

type msg struct {
	f   func() bool // reports whether the state changed (the loop then calls Run's changed)
	ran chan struct{}
}

// New returns a loop that does not run yet (see Run) and has no snapshot.
func New[S any]() *Loop[S] {
	return &Loop[S]{msgs: make(chan msg), quit: make(chan struct{}), done: make(chan struct{})}
}

// Run is the loop: it runs the closures handed to it, one at a time, and calls changed after
// each one that changed the state (changed runs on the loop: it builds and publishes the new
// snapshot). It returns once End is called or closing is closed.
func (l *Loop[S]) Run(closing <-chan struct{}, changed func()) {
	defer close(l.done)
	if checkReentry {
		l.gid.Store(goroutines.ID())
	}
	for {
		select {
		case m := <-l.msgs:
			if m.f() {
				changed()
			}
			close(m.ran)
		case <-l.quit:
			return
		case <-closing:
			return
		}
	}
}

// End ends the loop (once its current closure has run) and waits for it. The loop must run.
func (l *Loop[S]) End() {
	l.quitOnce.Do(func() { close(l.quit) })
	<-l.done
}

// Done is closed when the loop has ended.
func (l *Loop[S]) Done() <-chan struct{} { return l.done }

// Do runs f on the loop and returns once it has run; f reads or writes the state but changes
// nothing a snapshot shows (see Update). It returns false, f not run, once the loop has ended.
func (l *Loop[S]) Do(f func()) bool { return l.UpdateIf(func() bool { f(); return false }) }

// Update runs f on the loop like Do, then the loop's changed (a new snapshot published), before
// it returns: a reader never sees a change without its consequences.
func (l *Loop[S]) Update(f func()) bool { return l.UpdateIf(func() bool { f(); return true }) }

// UpdateIf is Update when f reports a change, else Do.
func (l *Loop[S]) UpdateIf(f func() bool) bool {
	l.checkNotOnLoop()
	m := msg{f: f, ran: make(chan struct{})}
	select {
	case l.msgs <- m:
	case <-l.done:
		return false
	}
	<-m.ran
	return true
}

// Publish makes s the snapshot readers Load, and returns the one it replaces (nil for the
// first). Only the loop publishes (or its owner, before Run). Nothing in s may be written after.
func (l *Loop[S]) Publish(s *S) (old *S) { return l.snap.Swap(s) }

// Load returns the last snapshot published (nil before the first).
func (l *Loop[S]) Load() *S { return l.snap.Load() }
