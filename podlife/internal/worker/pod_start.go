package worker

import (
	"github.com/containerd/errdefs"
	. "github.com/podlife/podlife/podlife/internal/api"

	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/worker/podsandbox"
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
	if err != nil && (p.isStopping() || errors.Is(err, errPodFailed)) {
		// A stop cancelled the start, or the pod failed on its own: the pod stays.
		p.log.Debug("start sequence ended", "err", err)
		err = nil
	}
	if err != nil && errors.Is(err, ErrCreateContainerConfig) {
		// A container cannot be created with its settings: the pod stays, that container
		// Waiting (CreateContainerConfigError), as the kubelet's; Run reports it.
		p.log.Info("a container cannot be created with its settings; the pod stays", "err", err)
		p.configErr = err
		err = nil
	}
	if err != nil && p.host.IsClosed() {
		// The runtime detached while the pod started: what exists of it stays for another
		// Runtime (Pod.Remove).
		p.log.Info("runtime closed while the pod started", "err", err)
		p.startErr = fmt.Errorf("pod %q: %w (start: %w)", p.name, ErrClosed, err)
		err = nil
	}
	if err != nil {
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

func (p *Worker) startSequence() error {
	if p.warm != nil {
		return p.startPrewarmed() // taken from a warm pool: everything is made (pool_start.go)
	}
	ctx := p.startCtx
	t0 := time.Now()
	defer func() { p.log.Debug("start sequence done", "took", time.Since(t0)) }()
	if err := p.sandbox.CreateLease(ctx, p.name, p.host.Cfg.StateDir); err != nil {
		close(p.netReady)
		return &StartError{Pod: p.name, Step: StepSandbox, Err: err}
	}
	if err := p.createSandbox(); err != nil {
		p.emit("", EventWarning, api.ReasonFailedCreateSandbox, "Failed to create pod sandbox: "+err.Error())
		close(p.netReady)
		return &StartError{Pod: p.name, Step: StepSandbox, Err: err}
	}
	if err := p.mountImageVolumes(leasedCtx(ctx, p)); err != nil {
		p.emit("", EventWarning, api.ReasonFailedCreateSandbox, "Failed to create pod sandbox: "+err.Error())
		close(p.netReady)
		return &StartError{Pod: p.name, Step: StepPull, Err: err}
	}
	if err := p.sandbox.CreateCgroup(p.spec.Resources); err != nil {
		p.emit("", EventWarning, api.ReasonFailedCreateSandbox, "Failed to create pod sandbox: "+err.Error())
		close(p.netReady)
		return &StartError{Pod: p.name, Step: StepSandbox, Err: err}
	}
	p.log.Debug("sandbox created", "took", time.Since(t0))
	setupFailed := make(chan error, 1+len(p.byName))
	p.spawn(gNetwork, func() {
		defer close(p.netReady)
		if err := p.sandbox.Attach(ctx, p.network, &p.spec, PortMappings(&p.spec)); err != nil {
			p.netErr = &StartError{Pod: p.name, Step: StepNetwork, Err: err}
			p.emit("", EventWarning, api.ReasonFailedCreateSandbox, "Failed to create pod sandbox: "+err.Error())
			setupFailed <- p.netErr
			return
		}
		p.update(func() { p.sandboxReady = true })
		p.emit("", EventNormal, api.ReasonSandboxReady, "Pod sandbox ready, IP "+p.sandbox.IP().String())
	})
	if p.pause != nil {
		// While the network attaches, before the containers' preparations: their specs
		// join the pause's PID namespace.
		if err := p.startPause(ctx); err != nil {
			p.emit("", EventWarning, api.ReasonFailedCreateSandbox, "Failed to create pod sandbox: "+err.Error())
			<-p.netReady
			return &StartError{Pod: p.name, Step: StepSandbox, Err: err}
		}
		p.log.Debug("pause started", "took", time.Since(t0))
	}
	// Every way out waits for every preparation, so no creation races a teardown.
	defer func() {
		for _, c := range p.byName {
			<-c.prepared
		}
		<-p.netReady
	}()
	// Any setup failure stops the sequence and every preparation still under way (a create
	// waiting for the pod's shim included): the pod is then removed whole.
	seqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	lctx := leasedCtx(seqCtx, p)
	for _, c := range append(append([]*Container{}, p.inits...), p.apps...) {
		p.spawn(gPrepare, func() {
			c.prepare(lctx)
			if c.prepErr != nil && lctx.Err() == nil && !errors.Is(c.prepErr, podsandbox.ErrShimAborted) && !errors.Is(c.prepErr, ErrCreateContainerConfig) {
				setupFailed <- c.prepErr
			}
		})
	}
	p.spawn(gSetupWatch, func() {
		select {
		case err := <-setupFailed:
			cancel(err)
		case <-seqCtx.Done():
		}
	})
	if err := p.runInits(seqCtx); err != nil {
		for _, c := range p.byName {
			<-c.prepared
		}
		if perr := p.rootPrepError(); perr != nil {
			return perr
		}
		return setupError(seqCtx, err)
	}
	err := p.startApps(seqCtx)
	for _, c := range p.byName {
		<-c.prepared
	}
	<-p.netReady
	if p.netErr != nil {
		return p.netErr
	}
	if err := p.rootPrepError(); err != nil {
		return err
	}
	return p.appsResult(seqCtx, err)
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

// appsResult is the start sequence's outcome from startApps' error: the sequence's cancel
// cause first; a postStart failure is not the start's; a container's CreateContainerConfigError
// leaves the pod (p.run), so any other container's failure goes first.
func (p *Worker) appsResult(seqCtx context.Context, err error) error {
	if cause := context.Cause(seqCtx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	if err == nil || p.isStopping() {
		return nil
	}
	var configErr error
	var se *StartError
	for _, e := range api.UnwrapJoined(err) {
		switch {
		case !errors.As(e, &se) || se.Step == StepPostStart:
		case errors.Is(e, ErrCreateContainerConfig):
			configErr = cmp.Or(configErr, e)
		default:
			return e
		}
	}
	return configErr
}

// rootPrepError returns the failure that explains the others: in a shared shim, one container's
// failed create makes containerd shut the shim down, and a sibling's create in flight then fails
// with "ttrpc: closed", which is only a consequence.
func (p *Worker) rootPrepError() error {
	var collateral error
	for _, c := range append(append([]*Container{}, p.inits...), p.apps...) {
		switch err := c.prepErr; {
		case err == nil || errors.Is(err, context.Canceled) || errors.Is(err, podsandbox.ErrShimAborted) || errors.Is(err, ErrCreateContainerConfig):
		case strings.Contains(err.Error(), "ttrpc: closed"):
			collateral = cmp.Or(collateral, err)
		default:
			return err
		}
	}
	return collateral
}

// setupError prefers the setup failure that cancelled the sequence over the cancellation itself.
func setupError(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	return err
}

// errPodFailed ends the start sequence of a pod that failed on its own (an init container failed
// under restartPolicy Never): the pod stays, Failed, for inspection.
var errPodFailed = errors.New("pod failed")

// runInits runs the init containers one at a time, in order. A regular init container must exit
// 0 (it is restarted under back-off until it does, or the pod fails under restartPolicy Never);
// the next one starts once a sidecar has started (its startupProbe succeeded, if any).
func (p *Worker) runInits(ctx context.Context) error {
	for _, c := range p.inits {
		if err := c.start(ctx); err != nil {
			var se *StartError
			if !errors.As(err, &se) || se.Step != StepPostStart {
				return err
			}
		}
		st, err := p.WaitFor(ctx, func(st PodStatus) bool {
			cs := p.view().ctrs[c].status
			if c.sidecar {
				return cs.Started || st.Phase == PhaseFailed
			}
			t := cs.State.Terminated
			return t != nil && t.ExitCode == 0 || st.Phase == PhaseFailed
		})
		if err != nil {
			return err
		}
		if st.Phase == PhaseFailed {
			return errPodFailed
		}
	}
	return nil
}

func (p *Worker) waitNetwork(ctx context.Context) error {
	select {
	case <-p.netReady:
		return p.netErr
	case <-ctx.Done():
		return ctx.Err()
	}
}
