package warmmember

import (
	"cmp"
	"context"
	"sync"

	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/worker/podstart"
)

// Make is a member's start sequence up to the processes (the worker's Prewarm): the cold
// start's sandbox steps (the lease, the sandbox, its image volumes and cgroup), then the
// network attach meanwhile the pause (if any) starts and every container is prepared (image,
// containerd container, task). It returns once the attach and every preparation are over; ctx
// is the member's start context. Unlike a cold start, no step emits an event of its failure.
func (m *Member) Make(ctx context.Context, w Pod) error {
	sp := w.Steps()
	for _, s := range sp.Sandbox {
		if err := s.Run(ctx); err != nil {
			sp.NetworkDone(nil)
			return err
		}
	}
	failpoint.Hit("pool.sandbox") // lease, sandbox (namespaces pinned), cgroup; no network yet
	sp.Go(podstart.GoNetwork, func() {
		var netErr error
		defer func() { sp.NetworkDone(netErr) }()
		if err := sp.Attach(ctx); err != nil {
			netErr = &api.StartError{Pod: sp.Name, Step: api.StepNetwork, Err: err}
			return
		}
		failpoint.Hit("pool.attached") // CNI ADD recorded; the containers' preparations go on
	})
	if sp.Pause != nil {
		if err := sp.Pause(ctx); err != nil {
			<-sp.NetReady // awaited: the member is then removed whole
			return err
		}
	}
	prepErr := prepareAll(sp.Leased(ctx), sp)
	if prepErr == nil {
		failpoint.Hit("pool.created") // every container created (its task, or its gate waiting)
	}
	<-sp.NetReady
	return cmp.Or(sp.NetErr(), prepErr)
}

// prepareAll prepares every container at once and returns, if one failed, the failure that
// explains the others (podstart.RootPrepError). Its goroutines end before it returns.
func prepareAll(ctx context.Context, sp podstart.Pod) error {
	var wg sync.WaitGroup
	for _, c := range sp.Containers {
		wg.Go(func() { c.Prepare(ctx) })
	}
	wg.Wait()
	errs := make([]error, len(sp.Containers))
	for i, c := range sp.Containers {
		errs[i] = c.Err()
	}
	for _, err := range errs {
		if err != nil {
			return cmp.Or(podstart.RootPrepError(errs, sp.ShimAborted), err)
		}
	}
	return nil
}
