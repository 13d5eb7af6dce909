package warmmember

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/worker/podstart"
)

// Start is the start sequence of a taken member (the worker's, from the init containers on):
// its sandbox, network and containers are made, so only processes start, in the same order as
// a cold start's, once the /etc files are the pod's; the record's sync completes meanwhile.
// Once they started, the containers' containerd labels become the pod's (relabel, in a
// goroutine; life is the pod's life context). ctx is the pod's start context.
func (m *Member) Start(ctx, life context.Context, w Pod) error {
	log := m.taken.Log
	t0 := time.Now()
	tr := &m.trace
	tr.markAt("record (pod.json) and /etc files", t0)
	defer func() {
		log.Debug("start sequence done (from the warm pool)", "took", time.Since(t0))
		if log.Enabled(ctx, slog.LevelDebug) {
			log.Debug("warm start timings", m.traceDone(w)...)
		}
	}()
	<-m.etcDone // done: the record waited for it
	// The record and the /etc files are the pod's; no process started.
	failpoint.Hit("take.starting")
	err := startProcesses(ctx, w.Steps())
	// The record is durable before Run returns, as a cold start's (see WriteRecord).
	if serr := m.syncRecord(); serr != nil && err == nil {
		err = &api.StartError{Pod: m.taken.Spec.Name, Step: api.StepSandbox, Err: fmt.Errorf("sync the pod record: %w", serr)}
	}
	tr.mark("record synced")
	// The containers' containerd labels become the pod's once its processes started: a
	// containerd call that need not delay them (everything finds them by the pod's UID).
	w.Go(GoRelabel, func() { m.relabel(life, w) })
	return err
}

// startProcesses starts the processes of a taken member as a cold start does (sp's), from the
// init containers on: one at a time, then the start policy's.
func startProcesses(ctx context.Context, sp podstart.Pod) error {
	seqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if err := sp.Inits(seqCtx); err != nil {
		return podstart.SetupError(seqCtx, err)
	}
	return podstart.AppsResult(seqCtx, sp.Apps(seqCtx), sp.Stopping())
}
