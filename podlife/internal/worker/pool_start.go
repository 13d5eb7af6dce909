package worker

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
)

// startPrewarmed is the start sequence of a pod taken from a warm pool (startSequence's, from
// the init containers on): its sandbox, network and containers are made, so only processes
// start, in the same order as a cold start's.
func (p *Worker) startPrewarmed() error {
	ctx := p.startCtx
	t0 := time.Now()
	tr := &p.warm.trace
	tr.markAt("record (pod.json) and /etc files", t0)
	defer func() {
		p.log.Debug("start sequence done (from the warm pool)", "took", time.Since(t0))
		if p.log.Enabled(ctx, slog.LevelDebug) {
			p.log.Debug("warm start timings", p.traceDone(tr)...)
		}
	}()
	<-p.warm.etcDone // done: the record waited for it
	err := p.startProcesses(ctx)
	// The record is durable before Run returns, as a cold start's (see writeRecordFile).
	if serr := p.syncRecord(); serr != nil && err == nil {
		err = &api.StartError{Pod: p.name, Step: api.StepSandbox, Err: fmt.Errorf("sync the pod record: %w", serr)}
	}
	tr.mark("record synced")
	// The containers' containerd labels become the pod's once its processes started: a
	// containerd call that need not delay them (everything finds them by the pod's UID).
	p.spawn(gRelabel, func() { p.relabel(p.warm.oldLabels) })
	return err
}

// startProcesses starts the processes of a taken member in the spec's order: the init
// containers one at a time, then the start policy's.
func (p *Worker) startProcesses(ctx context.Context) error {
	seqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if err := p.runInits(seqCtx); err != nil {
		return setupError(seqCtx, err)
	}
	return p.appsResult(seqCtx, p.startApps(seqCtx))
}
