package podstart

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
)

// The names of the goroutines Run starts through Pod.Go (the worker's group counts them so).
const (
	GoNetwork    = "network"     // the network attach
	GoPrepare    = "prepare"     // one container's preparation
	GoSetupWatch = "setup-watch" // the watch of the setup failures
)

// Pod is a pod's cold start as the worker gives it to Run.
type Pod struct {
	Name string
	Log  *slog.Logger
	// Emit emits an event about the pod itself.
	Emit func(typ api.EventType, reason api.Reason, msg string)
	// Go runs fn in a goroutine of the worker's group, counted as what.
	Go func(what string, fn func())
	// Sandbox are the sandbox's steps, in order, before the network attach.
	Sandbox []Step
	// Attach attaches the pod to its network; on success the worker marks its sandbox ready
	// (and Run emits SandboxReady, with IP: the pod's IP then).
	Attach func(ctx context.Context) error
	IP     func() string
	// NetworkDone records the network's outcome (nil also when the attach never ran) and
	// closes NetReady.
	NetworkDone func(err error)
	NetReady    <-chan struct{}
	NetErr      func() error // the network's outcome, once NetReady is closed
	// Pause starts the pod's pause (nil: the pod has none), while the network attaches and
	// before the containers' preparations: their specs join its PID namespace.
	Pause func(ctx context.Context) error
	// Leased gives ctx the pod's lease.
	Leased func(ctx context.Context) context.Context
	// Containers are the init containers, then the app containers.
	Containers []Container
	// Inits runs the init containers (see RunInits), Apps has the start policy start the
	// app containers.
	Inits func(ctx context.Context) error
	Apps  func(ctx context.Context) error
	// Stopping tells whether the pod's stop has begun.
	Stopping func() bool
	// ShimAborted is the error of a create that did not happen because the pod's shim will
	// not come (another container's failure): not a failure of its own.
	ShimAborted error
}

// Step is one step of the making of a pod's sandbox.
type Step struct {
	Step api.Step // the step a failure fails the start at
	// Event: a failure is reported by a FailedCreateSandbox Warning event.
	Event bool
	Run   func(ctx context.Context) error
}

// Container is one container's preparation in a pod's start.
type Container struct {
	Prepare  func(ctx context.Context) // closes Prepared once done
	Prepared <-chan struct{}
	Err      func() error // the preparation's failure, once Prepared is closed
}

// Run is a pod's cold start: its sandbox, then its network attach and its containers'
// preparations in parallel, then its init containers, then the start policy. It returns once
// every preparation and the network attach are done, so no creation races a teardown.
func Run(ctx context.Context, p Pod) error {
	t0 := time.Now()
	defer func() { p.Log.Debug("start sequence done", "took", time.Since(t0)) }()
	sandboxFailed := func(err error) {
		p.Emit(api.EventWarning, api.ReasonFailedCreateSandbox, "Failed to create pod sandbox: "+err.Error())
	}
	for _, s := range p.Sandbox {
		if err := s.Run(ctx); err != nil {
			if s.Event {
				sandboxFailed(err)
			}
			p.NetworkDone(nil)
			return &api.StartError{Pod: p.Name, Step: s.Step, Err: err}
		}
	}
	p.Log.Debug("sandbox created", "took", time.Since(t0))
	setupFailed := make(chan error, 1+len(p.Containers))
	p.Go(GoNetwork, func() {
		var netErr error
		defer func() { p.NetworkDone(netErr) }()
		if err := p.Attach(ctx); err != nil {
			netErr = &api.StartError{Pod: p.Name, Step: api.StepNetwork, Err: err}
			sandboxFailed(err)
			setupFailed <- netErr
		} else {
			p.Emit(api.EventNormal, api.ReasonSandboxReady, "Pod sandbox ready, IP "+p.IP())
		}
	})
	if p.Pause != nil {
		if err := p.Pause(ctx); err != nil {
			sandboxFailed(err)
			<-p.NetReady
			return &api.StartError{Pod: p.Name, Step: api.StepSandbox, Err: err}
		}
		p.Log.Debug("pause started", "took", time.Since(t0))
	}
	awaitPrepared := func() {
		for _, c := range p.Containers {
			<-c.Prepared
		}
	}
	// Every way out waits for every preparation, so no creation races a teardown.
	defer func() {
		awaitPrepared()
		<-p.NetReady
	}()
	// Any setup failure stops the sequence and every preparation still under way (a create
	// waiting for the pod's shim included): the pod is then removed whole.
	seqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	lctx := p.Leased(seqCtx)
	for _, c := range p.Containers {
		p.Go(GoPrepare, func() {
			c.Prepare(lctx)
			if err := c.Err(); err != nil && lctx.Err() == nil && !errors.Is(err, p.ShimAborted) && !errors.Is(err, api.ErrCreateContainerConfig) {
				setupFailed <- err
			}
		})
	}
	p.Go(GoSetupWatch, func() {
		select {
		case err := <-setupFailed:
			cancel(err)
		case <-seqCtx.Done():
		}
	})
	if err := p.Inits(seqCtx); err != nil {
		awaitPrepared()
		if perr := RootPrepError(p.errs(), p.ShimAborted); perr != nil {
			return perr
		}
		return SetupError(seqCtx, err)
	}
	err := p.Apps(seqCtx)
	awaitPrepared()
	<-p.NetReady
	if err := p.NetErr(); err != nil {
		return err
	}
	if err := RootPrepError(p.errs(), p.ShimAborted); err != nil {
		return err
	}
	return AppsResult(seqCtx, err, p.Stopping())
}

// errs are the containers' preparations' failures, once they are prepared.
func (p Pod) errs() []error {
	errs := make([]error, len(p.Containers))
	for i, c := range p.Containers {
		errs[i] = c.Err()
	}
	return errs
}
