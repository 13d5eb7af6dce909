package worker

// The start gate: no process starts once the pod is stopping, and a stop waits for every start
// in flight to be recorded (as running, or as failed) before it stops the containers. The loop
// grants each Task.Start with the check that the pod is not stopping and counts it
// (beginStartOwned); the start ends it on the loop when it is recorded (endStartOwned); a stop,
// once it set stopping, waits on a channel the loop closes when the count is back to zero
// (awaitStarts). No lock: the count is the loop's.

// beginStartOwned counts a start granted (the pod is not stopping); it runs on the loop.
func (p *Worker) beginStartOwned() { p.startsInFlight++ }

// endStartOwned ends a start beginStartOwned counted; it runs on the loop.
func (p *Worker) endStartOwned() {
	p.startsInFlight--
	if p.startsInFlight == 0 && p.startsIdle != nil {
		close(p.startsIdle)
		p.startsIdle = nil
	}
}

// awaitStarts waits, once the pod is stopping, until no start granted before is in flight, or
// the loop ended (nothing is recorded then).
func (p *Worker) awaitStarts() {
	var idle chan struct{}
	p.do(func() {
		if p.startsInFlight > 0 {
			if p.startsIdle == nil {
				p.startsIdle = make(chan struct{})
			}
			idle = p.startsIdle
		}
	})
	if idle == nil {
		return
	}
	select {
	case <-idle:
	case <-p.owner.Done():
	}
}
