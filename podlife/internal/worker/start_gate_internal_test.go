package worker

import (
	"runtime"
	"testing"
	"time"
)

// The start gate: a stop waits for a start the loop granted until the start is recorded, returns
// at once with none in flight, and does not wait for a loop that has ended.
func TestStartGate(t *testing.T) {
	p := &Worker{owner: newOwner(), host: &Host{}}
	go p.runLoop()

	p.awaitStarts() // nothing granted: returns at once

	p.do(p.starts.Begin) // a Task.Start in flight
	p.do(func() { p.stopping = true })
	waited := make(chan struct{})
	go func() { p.awaitStarts(); close(waited) }()
	// Once the stop waits (it asked the gate for its idle channel on the loop), it must go on waiting.
	deadline := time.Now().Add(10 * time.Second)
	for registered := false; !registered; {
		p.do(func() { registered = p.starts.Awaited() })
		if time.Now().After(deadline) {
			t.Fatal("the stop never waited for the start in flight")
		}
		runtime.Gosched()
	}
	select {
	case <-waited:
		t.Fatal("the stop went on with a start in flight")
	default:
	}
	p.do(p.starts.End) // the start is recorded
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Fatal("the stop still waits once the start was recorded")
	}

	p.do(p.starts.Begin) // granted, never recorded: the loop ends first
	ended := make(chan struct{})
	go func() { p.awaitStarts(); close(ended) }()
	p.endLoop()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the stop waits for a start after the loop ended")
	}
}
