package worker

// awaitStarts waits, once the pod is stopping, until no start granted before is in flight (see
// lifecycle.Gate: the pod's is starts, the loop's), or the loop ended (nothing is recorded
// then).
func (p *Worker) awaitStarts() {
	var idle <-chan struct{}
	p.do(func() { idle = p.starts.Idle() })
	if idle == nil {
		return
	}
	select {
	case <-idle:
	case <-p.owner.Done():
	}
}
