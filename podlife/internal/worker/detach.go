package worker

// detach leaves a stopped pod adopted for its stop (see stopUnmanaged) unmanaged again: its
// status written, its lock released, forgotten by the Runtime.
func (p *Worker) detach() {
	close(p.persistQuit)
	<-p.persisted
	p.releaseAdoptLock()
	p.rt.Forget(p)
}
