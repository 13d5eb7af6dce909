package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/podlife/internal/poddir"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/teardown"
)

// StopOptions change how Stop stops a pod (the public package's StopOption, resolved).
type StopOptions struct {
	// Grace overrides the pod's terminationGracePeriod for this stop, if set. Zero skips
	// preStop hooks.
	Grace *time.Duration
	// NoHooks skips preStop hooks.
	NoHooks bool
}

// Stop stops the pod the kubelet's way and releases its network: a start still in progress is
// cancelled (a running postStart hook included), every container gets its preStop hook and stop
// signal in parallel, then SIGKILL once the grace period is over (at least 2 s after the stop
// signal); then the tasks are deleted, CNI DEL runs and the namespaces are unpinned. Containers,
// logs and volumes stay until Remove.
//
// ctx cancels the wait, not the stop. Stop may be called any number of times; every call waits
// for the same stop, a call from one of the pod's own hooks included (the stop abandons the
// hook when its time is up). Once the Runtime is closed, Stop fails with ErrClosed: use a handle
// of another Runtime (Pod.Stop).
func (p *Worker) Stop(ctx context.Context, o StopOptions) error {
	select {
	case <-p.stopped:
		return p.stopErr
	default:
	}
	if p.host.IsClosed() {
		// Detached: this Runtime no longer sees the pod's processes. Another Runtime on the
		// state dir stops it (its Pod.Stop).
		return fmt.Errorf("pod %q: %w", p.name, ErrClosed)
	}
	grace := GracePeriod(&p.spec)
	if o.Grace != nil {
		grace = *o.Grace
	}
	p.spawn(gStop, func() { p.stopWith(p.lifeCtx, grace, !o.NoHooks, nil) })
	select {
	case <-p.stopped:
		return p.stopErr
	case <-ctx.Done():
		return p.host.WaitErr(ctx)
	}
}

// stopWith runs the stop once; later calls wait for the first one.
func (p *Worker) stopWith(ctx context.Context, grace time.Duration, hooks bool, cause error) {
	p.stopOnce.Do(func() {
		p.update(func() {
			p.stopping = true
			if cause != nil {
				p.reason, p.message = "StartError", cause.Error()
			}
		})
		p.persistStop(grace, hooks)
		failpoint.Hit("stop.begin")
		p.cancelStart()
		p.awaitStartSequence()
		// No Task.Start in flight, and none after this point (they check p.stopping).
		p.awaitStarts()
		p.awaitRestarts() // ephemeral containers' creations are bounded; their starts see p.stopping
		p.stopErr = p.stopAll(ctx, grace, hooks)
		p.update(func() { p.terminated = true })
		// Emitted before the stop is seen as over, so that a Stop that returned has its event.
		p.emit("", EventNormal, ReasonStopped, "Pod stopped")
		close(p.stopped)
	})
	<-p.stopped
}

// StartPolicySettle is how long a stop waits for a cancelled start sequence to return before it
// goes on without it (a start policy that ignores its context).
const StartPolicySettle = 2 * time.Second

// awaitStartSequence lets the cancelled start sequence return (see teardown.AwaitStart): a
// start policy that ignores its context is abandoned after StartPolicySettle, the creations in
// flight waited for, and the start gate keeps the policy from starting anything later.
func (p *Worker) awaitStartSequence() {
	var inFlight []<-chan struct{}
	for _, c := range p.byName {
		inFlight = append(inFlight, c.prepared)
	}
	teardown.AwaitStart(p.seqDone, StartPolicySettle, func() {
		msg := fmt.Sprintf("the start policy did not return %v after the stop cancelled it: stopping without it", StartPolicySettle)
		p.goroutines.ReleaseNamed(gStart) // user code that ignores its context: see group.go
		p.log.Warn(msg)
		p.emit("", EventWarning, ReasonStartPolicyAbandoned, msg)
	}, append(inFlight, p.netReady)...)
}

func (p *Worker) stopAll(ctx context.Context, grace time.Duration, hooks bool) error {
	var wg sync.WaitGroup
	for _, c := range p.allContainers() {
		wg.Go(func() { c.kill(grace, "", hooks) })
	}
	wg.Wait()
	if p.host.IsClosed() {
		// Detached meanwhile: deleting tasks now would kill what the stop left running. The
		// pod is another Runtime's to stop and remove.
		return fmt.Errorf("pod %q: stop cut short: %w", p.name, ErrClosed)
	}
	all := p.allContainers()
	errs := make([]error, len(all), len(all)+3) // each deletion writes its own
	var detachErr, pauseErr error
	wg.Go(func() { detachErr = p.sandbox.Detach(ctx, p.network, PortMappings(&p.spec)) })
	var tasks sync.WaitGroup
	for i, c := range all {
		tasks.Go(func() { errs[i] = c.deleteInstances(ctx, false) })
	}
	wg.Go(func() {
		tasks.Wait()
		// The pause last: its SIGKILL takes with it whatever is left in the PID namespace.
		pauseErr = p.stopPause(ctx)
	})
	wg.Wait()
	p.shim.RemoveStale(p.log)
	errs = append(errs, pauseErr, detachErr)
	errs = append(errs, p.sandbox.Release())
	failpoint.Hit("stop.unpinned")
	return errors.Join(errs...)
}

// Remove stops the pod if it is not stopped yet (with its grace period), then deletes its
// containers, snapshots, volumes, logs and state directory. After Remove the name can be reused.
// If a step fails (CNI DEL among them), Remove returns the error and the state directory stays,
// so that nothing is lost of what is left to release: Pod.Remove of a handle got again retries.
// Once the Runtime is closed, Remove of a pod not removed yet fails with ErrClosed: use a handle
// of another Runtime. Remove returns once every goroutine the worker started for the pod has
// returned (but the caller's own, and user code abandoned: see group.go).
func (p *Worker) Remove(ctx context.Context) error {
	if err := p.removal(ctx); err != nil {
		return err
	}
	if !p.goroutines.Await(ctx.Done()) {
		return p.host.WaitErr(ctx)
	}
	return p.removeErr
}

// removal runs the removal (once) and waits for it to end, not for the worker's goroutines
// (the removal of a pod whose start failed: the start sequence waits for it): nil once the pod
// is removed (how: p.removeErr), else why the wait ended.
func (p *Worker) removal(ctx context.Context) error {
	select {
	case <-p.removed:
		return nil
	default:
	}
	if p.host.IsClosed() {
		return fmt.Errorf("pod %q: %w", p.name, ErrClosed)
	}
	p.spawn(gRemove, func() { p.removeOnce.Do(p.remove) })
	select {
	case <-p.removed:
		return nil
	case <-ctx.Done():
		return p.host.WaitErr(ctx)
	}
}

// remove is the removal, once: the stop, then the deletion of everything of the pod.
func (p *Worker) remove() {
	p.stopWith(p.lifeCtx, GracePeriod(&p.spec), true, nil)
	var wg sync.WaitGroup
	all := p.allContainers()
	cut := p.cutCreates(all)
	errs := make([]error, len(all)) // each deletion writes its own
	for i, c := range all {
		wg.Go(func() { errs[i] = c.deleteInstances(p.lifeCtx, true) })
	}
	wg.Wait()
	errs = append(errs, p.stopPause(p.lifeCtx)) // if the stop could not
	errs = append(errs, p.sandbox.RemoveCgroup(p.spec.Resources))
	for _, c := range all {
		// The Runtime outlives its pods: their back-off entries must not pile up. (No
		// restart is left to advance one: the stop waited for them.)
		p.host.Backoff.Reset(c.backoffKey())
	}
	p.shim.RemoveStale(p.log)
	errs = append(errs, cut.Settle(p.lifeCtx, p.log))
	// A CNI DEL that failed in the stop is tried once more. If it fails again the pod's
	// directory stays, with sandbox.json, the only record of the attachment (its IPAM lease,
	// hostPort rules and libcni cache): Pod.Remove retries from it.
	errs = append(errs, p.sandbox.Detach(p.lifeCtx, p.network, PortMappings(&p.spec)))
	// The image volumes are unmounted before their views are removed.
	errs = append(errs, p.sandbox.RemoveVolumes(&p.spec, p.host.RealDir), p.removeImageViews(p.lifeCtx), p.sandbox.DeleteLease(p.lifeCtx, p.host.Retry))
	failpoint.Hit("remove.lease-deleted")
	close(p.persistQuit)
	<-p.persisted
	if err := errors.Join(errs...); err == nil {
		errs = append(errs, poddir.Remove(p.sandbox.Dir()))
	}
	p.removeErr = errors.Join(errs...)
	p.host.Forget(p) // and the Runtime releases its adoption lock, if it adopted it
	p.emit("", EventNormal, ReasonRemoved, "Pod removed")
	p.endLoop() // nothing of the pod is left to own
	close(p.removed)
}

// cutCreates notes the instances of all without a task, for the removal (see
// teardown.CutCreates): it may end the pod's shims before their containers are deleted.
func (p *Worker) cutCreates(all []*Container) teardown.CutCreates {
	in := teardown.Instances{Namespace: p.host.Cfg.Namespace, Started: []string{p.shimGroup()}, SharedShim: p.shim.Shared()}
	for _, c := range all {
		var live []*instance
		p.do(func() { live = append([]*instance(nil), c.live...) })
		for _, i := range live {
			in.Started = append(in.Started, i.id)
			var task tasks.Task
			i.own(func() { task = i.task })
			in.AnyTask = in.AnyTask || task != nil
			if task == nil && i.cg != nil {
				in.Cut = append(in.Cut, teardown.Cut{ID: i.id, Socket: p.instanceShimSocket(i), Cgroup: i.cg})
			}
		}
	}
	if p.pause != nil {
		p.do(func() { in.AnyTask = in.AnyTask || p.pause.task != nil })
	}
	return teardown.NoteCutCreates(p.lifeCtx, in, p.log)
}
