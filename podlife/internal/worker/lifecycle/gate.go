package lifecycle

import "context"

// Gate is a pod's start gate: no process starts once the pod is stopping, and a stop waits for
// every start in flight to be recorded (as running, or as failed) before it stops the
// containers. The pod's loop grants each start with the check that the pod is not stopping and
// counts it (Begin); the start ends it on the loop when it is recorded (End); a stop, once it
// set stopping, waits on the channel Idle gives, which End closes when the count is back to
// zero (Await). It has no lock: its methods run on the pod's loop only (Start's Grant, Failed
// and Running are where the worker calls them), but Await, which calls the loop.
type Gate struct {
	inFlight int
	idle     chan struct{} // made by Idle while starts are in flight
}

// Starter is a task whose process can be started.
type Starter interface {
	Start(ctx context.Context) error
}

// Grant grants the start of task's process unless the pod is stopping: task's Start, counted
// (Begin), or nil if stopping or if task is nil (deleted).
func (g *Gate) Grant(stopping bool, task Starter) func(ctx context.Context) error {
	if stopping || task == nil {
		return nil
	}
	g.Begin()
	return task.Start
}

// Begin counts a start granted.
func (g *Gate) Begin() { g.inFlight++ }

// End ends a start Begin counted.
func (g *Gate) End() {
	g.inFlight--
	if g.inFlight == 0 && g.idle != nil {
		close(g.idle)
		g.idle = nil
	}
}

// Idle returns a channel closed once no start granted before is in flight, nil if none is.
func (g *Gate) Idle() <-chan struct{} {
	if g.inFlight == 0 {
		return nil
	}
	if g.idle == nil {
		g.idle = make(chan struct{})
	}
	return g.idle
}

// Await waits until no start granted before the call is in flight, or until done is closed
// (the loop ended: nothing is recorded then). It runs off the loop: do runs a function on it.
func (g *Gate) Await(do func(func()) bool, done <-chan struct{}) {
	var idle <-chan struct{}
	do(func() { idle = g.Idle() })
	if idle == nil {
		return
	}
	select {
	case <-idle:
	case <-done:
	}
}

// Awaited tells whether a stop waits for the starts in flight (Idle gave it a channel that is
// not closed yet).
func (g *Gate) Awaited() bool { return g.idle != nil }
