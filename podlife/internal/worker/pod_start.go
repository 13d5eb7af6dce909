package worker

import (
	"github.com/containerd/errdefs"
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"fmt"
	"time"

	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/worker/podsandbox"
	"github.com/podlife/podlife/podlife/internal/worker/podstart"
)

// run is the pod's start sequence: sandbox, then network attach and container preparation in
// parallel, then init containers, then the start policy.
func (p *Worker) run() {
	// Without its record, the pod would be invisible to other processes and taken for the
	// leftover of a crash by their startup garbage collection (gc.go): it does not start.
	recErr := p.writeRecord()
	failpoint.Hit("run.record")
	p.spawn(gStatus, func() { p.persistStatus(p.persistQuit) })
	if recErr == nil {
		p.spawn(gDeadline, p.enforceDeadline) // also without one: one may be set on the running pod
	}
	if recErr == nil {
		p.spawn(gStorage, p.enforceStorage)
	}
	var err error
	if recErr != nil {
		close(p.netReady)
		err = &StartError{Pod: p.name, Step: StepSandbox, Err: fmt.Errorf("write the pod record: %w", recErr)}
	} else {
		err = p.startSequence()
	}
	close(p.seqDone)
	switch podstart.OutcomeOf(err, p.isStopping(), p.host.IsClosed) {
	case podstart.Stays:
		p.log.Debug("start sequence ended", "err", err)
	case podstart.ConfigFailed:
		// Run reports it; the pod stays.
		p.log.Info("a container cannot be created with its settings; the pod stays", "err", err)
		p.configErr = err
	case podstart.Detached:
		// What exists of the pod stays for another Runtime (Pod.Remove).
		p.log.Info("runtime closed while the pod started", "err", err)
		p.startErr = fmt.Errorf("pod %q: %w (start: %w)", p.name, ErrClosed, err)
	case podstart.Failed:
		p.log.Info("pod failed to start; removing it", "err", err)
		p.startErr = err
		removed := make(chan struct{})
		p.spawn(gFailedStart, func() {
			defer close(removed)
			ctx, cancel := context.WithTimeout(p.lifeCtx, time.Minute)
			defer cancel()
			p.stopWith(ctx, 0, false, err)
			_ = p.removal(ctx) // not Remove: it would wait for this start sequence
		})
		select {
		case <-removed:
		case <-p.host.ConnLostCh():
			// containerd is away (maybe the cause of the failure): Run returns now; the
			// removal goes on and completes once containerd answers again.
			p.startErr = fmt.Errorf("%w (containerd does not answer: the pod is removed once it is back: %w)", err, errdefs.ErrUnavailable)
		}
	}
	close(p.started)
}

// startSequence is the start of the pod's sandbox and containers (see podstart.Run), or of a
// member taken from a warm pool.
func (p *Worker) startSequence() error {
	if p.warm != nil {
		return p.startPrewarmed() // taken from a warm pool: everything is made (warm_member.go, package warmmember)
	}
	sandboxStep := func(f func() error) func(context.Context) error { return func(context.Context) error { return f() } }
	return podstart.Run(p.startCtx, podstart.Pod{
		Name: p.name, Log: p.log, Emit: p.emitter(""), Go: func(what string, fn func()) { p.spawn(what, fn) },
		Sandbox: []podstart.Step{
			{Step: StepSandbox, Run: func(ctx context.Context) error { return p.sandbox.CreateLease(ctx, p.name, p.host.Cfg.StateDir) }},
			{Step: StepSandbox, Event: true, Run: sandboxStep(p.createSandbox)},
			{Step: StepPull, Event: true, Run: func(ctx context.Context) error { return p.mountImageVolumes(leasedCtx(ctx, p)) }},
			{Step: StepSandbox, Event: true, Run: sandboxStep(func() error { return p.sandbox.CreateCgroup(p.spec.Resources) })},
		},
		Attach: func(ctx context.Context) error {
			if err := p.sandbox.Attach(ctx, p.network, &p.spec, PortMappings(&p.spec)); err != nil {
				return err
			}
			p.update(func() { p.sandboxReady = true })
			p.emit("", EventNormal, api.ReasonSandboxReady, "Pod sandbox ready, IP "+p.sandbox.IP().String())
			return nil
		},
		NetworkDone: func(err error) { p.netErr = err; close(p.netReady) },
		NetReady:    p.netReady,
		NetErr:      func() error { return p.netErr },
		Pause:       p.pauseStep(),
		Leased:      func(ctx context.Context) context.Context { return leasedCtx(ctx, p) },
		Containers:  p.startContainers(),
		Inits:       p.runInits,
		Apps:        p.startApps,
		Stopping:    p.isStopping,
		ShimAborted: podsandbox.ErrShimAborted,
	})
}

// pauseStep is the start of the pod's pause in the start sequence, nil if it has none.
func (p *Worker) pauseStep() func(context.Context) error {
	if p.pause == nil {
		return nil
	}
	return p.startPause
}

// startContainers are the pod's init and app containers' preparations (see podstart.Container).
func (p *Worker) startContainers() []podstart.Container {
	var out []podstart.Container
	for _, c := range append(append([]*Container{}, p.inits...), p.apps...) {
		out = append(out, podstart.Container{Prepare: c.prepare, Prepared: c.prepared, Err: func() error { return c.prepErr }})
	}
	return out
}

// startApps has the pod's start policy start its app containers (the init containers ran).
func (p *Worker) startApps(seqCtx context.Context) error {
	names := make([]string, len(p.apps))
	for i, c := range p.apps {
		names[i] = c.spec.Name
	}
	return p.spec.StartPolicy.Start(seqCtx, &podStarter{p: p, names: names, start: func(ctx context.Context, name string) error {
		c, ok := p.byName[name]
		if !ok || c.init {
			return fmt.Errorf("start policy asked for unknown container %q", name)
		}
		return c.start(ctx)
	}})
}

// appsResult is the start sequence's outcome from startApps' error (see podstart.AppsResult).
func (p *Worker) appsResult(seqCtx context.Context, err error) error {
	return podstart.AppsResult(seqCtx, err, p.isStopping())
}

// rootPrepError returns the containers' preparations' failure that explains the others (see
// podstart.RootPrepError).
func (p *Worker) rootPrepError() error {
	var errs []error
	for _, c := range p.startContainers() {
		errs = append(errs, c.Err())
	}
	return podstart.RootPrepError(errs, podsandbox.ErrShimAborted)
}

// setupError prefers the setup failure that cancelled the sequence (see podstart.SetupError).
var setupError = podstart.SetupError

// runInits runs the init containers one at a time, in order (see podstart.RunInits).
func (p *Worker) runInits(ctx context.Context) error {
	inits := make([]podstart.Init, len(p.inits))
	for i, c := range p.inits {
		inits[i] = podstart.Init{Sidecar: c.sidecar, Start: c.start, Status: c.Status}
	}
	return podstart.RunInits(ctx, inits, p.WaitFor)
}

func (p *Worker) waitNetwork(ctx context.Context) error {
	select {
	case <-p.netReady:
		return p.netErr
	case <-ctx.Done():
		return ctx.Err()
	}
}
