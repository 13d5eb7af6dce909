package worker

import (
	"context"
	"time"
)

// startPrewarmed is the start sequence of a pod taken from a warm pool (startSequence's, from
// the init containers on): its sandbox, network and containers are made, so only processes
// start, in the same order as a cold start's.
func (p *Worker) startPrewarmed() error {
	ctx := p.startCtx
	t0 := time.Now()
	defer func() { p.log.Debug("start sequence done (from the warm pool)", "took", time.Since(t0)) }()
	seqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if err := p.runInits(seqCtx); err != nil {
		return setupError(seqCtx, err)
	}
	return p.appsResult(seqCtx, p.startApps(seqCtx))
}
