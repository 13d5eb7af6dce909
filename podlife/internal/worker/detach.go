package worker

// detach leaves a stopped pod adopted for its stop (see stopUnmanaged) unmanaged again: its
// status written, forgotten by the Runtime (which releases its adoption lock).
func (p *Worker) detach() {
	close(p.persistQuit)
	<-p.persisted
	p.host.Forget(p)
}
