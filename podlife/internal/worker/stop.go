package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/podlife/internal/poddir"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/teardown"
	"github.com/podlife/podlife/podlife/internal/worker/warmmember"
)

// StopOptions change how Stop stops a pod (the public package's StopOption, resolved).
type StopOptions struct {
	// Grace overrides the pod's terminationGracePeriod for this stop, if set. Zero skips
	// preStop hooks.
	Grace *time.Duration
	// NoHooks skips preStop hooks.
	NoHooks bool
}

// Stop stops the pod the kubelet's way and releases its network (podlife's Pod.Stop says how);
// ctx cancels the wait, not the stop, and every call waits for the same stop. Once the Runtime
// is closed (detached: it no longer sees the pod's processes), Stop fails with ErrClosed.
func (p *Worker) Stop(ctx context.Context, o StopOptions) error {
	grace := GracePeriod(&p.spec)
	if o.Grace != nil {
		grace = *o.Grace
	}
	if err := p.awaitEnd(ctx, p.stopped, gStop, func() { p.stopWith(p.lifeCtx, grace, !o.NoHooks, nil) }); err != nil {
		return err
	}
	return p.stopErr
}

// awaitEnd starts end (the stop or the removal, in a goroutine named what) unless it is over
// (done closed), and waits for it (see teardown.AwaitEnd).
func (p *Worker) awaitEnd(ctx context.Context, done <-chan struct{}, what string, end func()) error {
	var closed error
	if p.host.IsClosed() {
		closed = fmt.Errorf("pod %q: %w", p.name, ErrClosed)
	}
	return teardown.AwaitEnd(ctx, done, closed, func() { p.spawn(what, end) }, p.host.WaitErr)
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
	teardown.Each(p.allContainers(), func(c *Container) error { c.kill(grace, "", hooks); return nil })
	if p.host.IsClosed() {
		// Detached meanwhile: deleting tasks now would kill what the stop left running. The
		// pod is another Runtime's to stop and remove.
		return fmt.Errorf("pod %q: stop cut short: %w", p.name, ErrClosed)
	}
	var detachErr error
	var wg sync.WaitGroup
	wg.Go(func() { detachErr = p.sandbox.Detach(ctx, p.network, PortMappings(&p.spec)) })
	deleted := teardown.Each(p.allContainers(), func(c *Container) error { return c.deleteInstances(ctx, false) })
	// The pause last: its SIGKILL takes with it whatever is left in the PID namespace.
	pauseErr := p.stopPause(ctx)
	wg.Wait()
	p.shim.RemoveStale(p.log)
	err := errors.Join(deleted, pauseErr, detachErr, p.sandbox.Release())
	failpoint.Hit("stop.unpinned")
	return err
}

// waitOutlived blocks a sidecar's stop signal until every container it outlives
// (teardown.Outlived) has exited, or until deadline.
func (p *Worker) waitOutlived(sidecar *Container, deadline time.Time) {
	ctx, cancel := context.WithDeadline(p.lifeCtx, deadline)
	defer cancel()
	outlived := teardown.Outlived(sidecar, p.inits, func(c *Container) bool { return c.sidecar }, p.apps)
	_, _ = p.WaitFor(ctx, func(PodStatus) bool {
		gone := true // also once the loop has ended
		p.do(func() {
			gone = !slices.ContainsFunc(outlived, func(c *Container) bool { return c.cur != nil && c.cur.running && c.st.State.Running != nil })
		})
		return gone
	})
}

// Remove stops the pod if it is not stopped yet (with its grace period), then deletes all of it
// (podlife's Pod.Remove says what; a failed step leaves the state directory, for a retry). Once
// the Runtime is closed, it fails with ErrClosed. It returns once every goroutine the worker
// started for the pod has returned (but the caller's own, and user code abandoned: group.go).
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
	return p.awaitEnd(ctx, p.removed, gRemove, func() { p.removeOnce.Do(p.remove) })
}

// remove is the removal, once: the stop, then the deletion of everything of the pod.
func (p *Worker) remove() {
	p.stopWith(p.lifeCtx, GracePeriod(&p.spec), true, nil)
	all := p.allContainers()
	cut := p.cutCreates(all)
	errs := []error{teardown.Each(all, func(c *Container) error { return c.deleteInstances(p.lifeCtx, true) })}
	errs = append(errs, p.stopPause(p.lifeCtx), p.sandbox.RemoveCgroup(p.spec.Resources)) // the pause: if the stop could not
	for _, c := range all {
		// The Runtime outlives its pods: their back-off entries must not pile up. (No
		// restart is left to advance one: the stop waited for them.)
		p.host.Backoff.Reset(c.backoffKey())
	}
	p.shim.RemoveStale(p.log)
	// A CNI DEL that failed in the stop is tried once more. If it fails again the pod's
	// directory stays, with sandbox.json, the only record of the attachment (its IPAM lease,
	// hostPort rules and libcni cache): Pod.Remove retries from it. The image volumes are
	// unmounted before their views are removed.
	errs = append(errs, cut.Settle(p.lifeCtx, p.log), p.sandbox.Detach(p.lifeCtx, p.network, PortMappings(&p.spec)),
		p.sandbox.RemoveVolumes(&p.spec, p.host.RealDir), p.removeImageViews(p.lifeCtx), p.sandbox.DeleteLease(p.lifeCtx, p.host.Retry))
	failpoint.Hit("remove.lease-deleted")
	close(p.persistQuit)
	<-p.persisted
	if err := errors.Join(errs...); err == nil {
		if err := poddir.Remove(p.sandbox.Dir()); err != nil {
			errs = append(errs, err)
		} else {
			// A pod taken from a warm pool member leaves a link at the member's path.
			warmmember.SweepLinks(p.host.Cfg.StateDir)
		}
	}
	p.removeErr = errors.Join(errs...)
	// The pods' lock, still held if the pod's first record could not be written (its start
	// failed): its directory, without a record, was this removal's until now (see writeRecord).
	p.records.Release()
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
