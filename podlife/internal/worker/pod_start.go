package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"fmt"
	"slices"
	"time"

	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/podlife/internal/worker/podsandbox"
	"github.com/podlife/podlife/podlife/internal/worker/podstart"
	"github.com/podlife/podlife/podlife/internal/worker/startorder"
)

// run is the pod's start sequence: sandbox, then network attach and container preparation in
// parallel, then init containers, then the start policy.
func (p *Worker) run() {
	// Without its record, the pod would be invisible to other processes and taken for the
	// leftover of a crash by their startup garbage collection (gc.go): it does not start.
	recErr := p.writeRecord()
	failpoint.Hit("run.record")
	p.spawn(gStatus, func() { p.persistStatus(p.persistQuit) })
	var err error
	if recErr == nil {
		p.spawn(gDeadline, p.enforceDeadline) // also without one: one may be set on the running pod
		p.spawn(gStorage, p.enforceStorage)
		err = p.startSequence()
	} else {
		select {
		case <-p.netReady: // a taken warm pool member's: attached when the member was made
		default:
			close(p.netReady)
		}
		err = &StartError{Pod: p.name, Step: StepSandbox, Err: fmt.Errorf("write the pod record: %w", recErr)}
	}
	close(p.seqDone)
	removing := false // the failed start's removal releases the pods' lock if the record was not written
	p.startErr, p.configErr = podstart.Conclude(err, podstart.Ending{Pod: p.name, Log: p.log, Stopping: p.isStopping(),
		Closed: p.host.IsClosed, ConnLost: p.host.ConnLostCh, Remove: func() <-chan struct{} {
			removing = true
			removed := make(chan struct{})
			p.spawn(gFailedStart, func() {
				defer close(removed)
				ctx, cancel := context.WithTimeout(p.lifeCtx, time.Minute)
				defer cancel()
				p.stopWith(ctx, 0, false, err)
				_ = p.removal(ctx) // not Remove: it would wait for this start sequence
			})
			return removed
		}})
	if !removing {
		// The pod stays, or is left to another Runtime (closed), without its record if it
		// could not be written: nothing of this process undoes its directory any more.
		p.records.Release()
	}
	close(p.started)
}

// startSequence is the start of the pod's sandbox and containers (see podstart.Run), or of a
// member taken from a warm pool: everything is made (package warmmember).
func (p *Worker) startSequence() error {
	if p.warm != nil {
		return p.warm.Start(p.startCtx, p.lifeCtx, warmPod{p})
	}
	return podstart.Run(p.startCtx, p.startSteps())
}

// startSteps are the steps of the pod's cold start (podstart.Run); a warm pool member's make
// and start run them too.
func (p *Worker) startSteps() podstart.Pod {
	sandboxStep := func(f func() error) func(context.Context) error { return func(context.Context) error { return f() } }
	sp := podstart.Pod{
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
			return nil
		},
		IP:          func() string { return p.sandbox.IP().String() },
		NetworkDone: func(err error) { p.netErr = err; close(p.netReady) },
		NetReady:    p.netReady,
		NetErr:      func() error { return p.netErr },
		Leased:      func(ctx context.Context) context.Context { return leasedCtx(ctx, p) },
		Inits:       p.runInits,
		Apps:        func(ctx context.Context) error { return p.startApps(ctx, (*Container).start) },
		Stopping:    p.isStopping,
		ShimAborted: podsandbox.ErrShimAborted,
	}
	if p.pause != nil {
		sp.Pause = p.startPause
	}
	for _, c := range slices.Concat(p.inits, p.apps) {
		sp.Containers = append(sp.Containers, podstart.Container{Prepare: c.prepare, Prepared: c.prepared, Err: func() error { return c.prepErr }})
	}
	return sp
}

// startApps has the pod's start policy start its app containers, each by start: c.start in
// the start sequence (the init containers ran), c.rerun in a restart of all the containers.
func (p *Worker) startApps(ctx context.Context, start func(*Container, context.Context) error) error {
	return p.spec.StartPolicy.Start(ctx, &startorder.PodStarter{Names: containerNames(p.apps), Do: p.do, Update: p.update,
		StartFunc: func(ctx context.Context, name string) error {
			if c, ok := p.byName[name]; ok && !c.init {
				return start(c, ctx)
			}
			return fmt.Errorf("start policy asked for unknown container %q", name)
		},
		DependsOnFunc: func(name string) []Dependency {
			if c, ok := p.byName[name]; ok {
				return c.spec.DependsOn
			}
			return nil
		},
		State: func(name string) (func() startorder.State, error) {
			c, err := p.Container(name)
			if err != nil {
				return nil, err
			}
			return func() startorder.State {
				t := c.st.State.Terminated
				return startorder.State{Terminated: t, Started: c.st.Started, Ready: c.st.Ready, Restarts: t != nil && c.shouldRestartOwned(t.ExitCode)}
			}, nil
		},
		WaitFor: func(ctx context.Context, cond func() bool) error {
			_, err := p.WaitFor(ctx, func(PodStatus) bool { return cond() })
			return err
		},
	})
}

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
