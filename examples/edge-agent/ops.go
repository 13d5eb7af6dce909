package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
)

// do carries out one action and records its outcome.
func (a *agent) do(ctx context.Context, act action) {
	switch act.Kind {
	case actRemove:
		err := a.removePod(ctx, act.Name)
		a.finish(act.Name, func(e *entry) {
			if err != nil {
				e.err = err.Error()
				return
			}
			delete(a.pods, act.Name)
		})
	case actReplace:
		if err := a.removePod(ctx, act.Name); err != nil {
			a.finish(act.Name, func(e *entry) { e.err = err.Error() })
			return
		}
		a.runPod(ctx, *act.Desired)
	case actRun:
		a.runPod(ctx, *act.Desired)
	case actAdopt:
		a.adoptPod(ctx, *act.Desired)
	}
}

// errNotOwn: a pod of the name the agent would run exists, and the agent did not start it.
var errNotOwn = errors.New("a pod of this name exists that this agent did not start: remove it, or rename the manifest's pod")

// runPod records the pod as the agent's, then runs it. The name must be free: a pod the
// agent did not start is never recorded as its own.
func (a *agent) runPod(ctx context.Context, d desiredPod) {
	err := errNotOwn
	if _, lerr := a.rt.LookupPod(ctx, d.Name); !errors.Is(lerr, podlife.ErrNotFound) {
		if lerr != nil {
			err = lerr
		}
		a.cfg.log.Error("run", "pod", d.Name, "err", err)
		a.finish(d.Name, func(e *entry) { e.State, e.pod, e.err = stateFailed, nil, err.Error(); a.backOff(e) })
		return
	}
	if err := a.cfg.records.put(record{Name: d.Name, File: d.File, Hash: d.Hash}); err != nil {
		a.finish(d.Name, func(e *entry) { e.State, e.err = stateFailed, err.Error(); a.backOff(e) })
		return
	}
	pod, err := a.rt.Run(ctx, d.Spec)
	switch {
	case err == nil:
		a.cfg.log.Info("running", "pod", d.Name)
		a.finish(d.Name, func(e *entry) { e.State, e.pod, e.err, e.failures = stateManaged, pod, "", 0 })
	case pod != nil && errors.Is(context.Cause(ctx), errSuperseded):
		// Still starting when its manifest changed or went: remove it; the next plan goes on.
		rerr := a.removePod(ctx, d.Name)
		a.finish(d.Name, func(e *entry) {
			if rerr != nil {
				e.State, e.pod, e.err = stateManaged, pod, rerr.Error()
				return
			}
			delete(a.pods, d.Name)
		})
	case pod != nil:
		// The agent is exiting: the pod is left starting, for the next agent to find.
		a.finish(d.Name, func(e *entry) { e.State, e.pod = stateManaged, pod })
	default:
		// Run removed what it had created (or refused the spec, or the name is taken).
		a.cfg.log.Error("run", "pod", d.Name, "err", err)
		if rerr := a.cfg.records.remove(d.Name); rerr != nil {
			err = errors.Join(err, rerr)
		}
		a.finish(d.Name, func(e *entry) { e.State, e.pod, e.err = stateFailed, nil, err.Error(); a.backOff(e) })
	}
}

// adoptPod takes over a pod found at start whose manifest is unchanged, without restarting
// it. One that does not run as its manifest says (its start was interrupted, it was stopped or
// ended) or whose spec differs (another podlife's defaults) is replaced; one that another live
// process manages is left alone.
func (a *agent) adoptPod(ctx context.Context, d desiredPod) {
	pod, err := a.rt.Adopt(ctx, d.Spec)
	switch {
	case err == nil && notRunning(pod.Status(), d.Spec) != "":
		a.mu.Lock()
		a.pods[d.Name].State, a.pods[d.Name].pod = stateManaged, pod
		a.mu.Unlock()
		a.replace(ctx, d, notRunning(pod.Status(), d.Spec))
	case err == nil:
		a.cfg.log.Info("adopted", "pod", d.Name)
		a.finish(d.Name, func(e *entry) { e.State, e.pod, e.err = stateManaged, pod, "" })
	case errors.Is(err, podlife.ErrSpecChanged):
		a.replace(ctx, d, err.Error())
	case errors.Is(err, podlife.ErrNotFound):
		a.runPod(ctx, d) // gone meanwhile
	default:
		// podlife.ErrManaged (a live process manages it), or an error: leave it alone.
		a.cfg.log.Error("adopt", "pod", d.Name, "err", err)
		a.finish(d.Name, func(e *entry) { e.State, e.err = stateUnmanaged, err.Error() })
	}
}

// replace removes a pod found at start and runs it again, for why.
func (a *agent) replace(ctx context.Context, d desiredPod, why string) {
	a.cfg.log.Info("replacing a pod found at start", "pod", d.Name, "why", why)
	a.mu.Lock()
	a.pods[d.Name].Op = actReplace
	a.mu.Unlock()
	if err := a.removePod(ctx, d.Name); err != nil {
		a.finish(d.Name, func(e *entry) { e.err = err.Error() })
		return
	}
	a.runPod(ctx, d)
}

// notRunning says why an adopted pod does not run as its spec says, "" if it does: its start
// was interrupted, it was being stopped, or, under restartPolicy Always, it ended. (Its
// containers are supervised again: one that exited is restarted by the policy.)
func notRunning(st podlife.PodStatus, spec podlife.PodSpec) string {
	always := spec.RestartPolicy == "" || spec.RestartPolicy == podlife.RestartAlways
	switch {
	case st.Reason == reasons.StartInterrupted:
		return "its start was interrupted"
	case st.Stopping:
		return "it was being stopped"
	case always && (st.Phase == podlife.PhaseSucceeded || st.Phase == podlife.PhaseFailed):
		return "it ended (phase " + string(st.Phase) + ")"
	}
	return ""
}

// removePod stops the pod with its grace period and removes it, then its record. Neither a
// cancellation nor the agent's exit interrupt it: it ends within the grace period.
func (a *agent) removePod(ctx context.Context, name string) error {
	pod, err := a.rt.Pod(name)
	if err == nil {
		err = pod.Remove(context.WithoutCancel(ctx))
	}
	if err != nil && !errors.Is(err, podlife.ErrNotFound) {
		a.cfg.log.Error("remove", "pod", name, "err", err)
		return err
	}
	a.cfg.log.Info("removed", "pod", name)
	return a.cfg.records.remove(name)
}

// forget drops an idle, unmanaged pod that is gone (removed by someone else): the next plan
// runs it again.
func (a *agent) forget(name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if e, ok := a.pods[name]; !ok || e.Op != "" || e.State != stateUnmanaged {
		return
	}
	a.cfg.log.Warn("pod removed behind the agent's back", "pod", name)
	if err := a.cfg.records.remove(name); err != nil {
		a.cfg.log.Error("forget pod", "pod", name, "err", err) // tried again next time
		return
	}
	delete(a.pods, name)
	a.kickNow()
}

// finish updates the entry of a pod whose operation ended.
func (a *agent) finish(name string, update func(*entry)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e := a.pods[name]
	e.Op, e.Cancelled = "", false
	update(e)
}

// backOff schedules the next start of a failed pod.
func (a *agent) backOff(e *entry) {
	d := a.cfg.retry.Initial
	for i := 1; i < e.failures && d < a.cfg.retry.Max; i++ {
		d *= 2
	}
	e.failures++
	e.RetryAt = time.Now().Add(min(d, a.cfg.retry.Max))
}

// removeAllParallel bounds the pods removeAll removes at once: the kubelet's default --max-pods
// (110), so that every pod a node may hold stops in one wave (as long as its slowest pod's
// grace period), while a host with thousands of manifests does not open thousands of
// containerd calls at once.
const removeAllParallel = 110

// removeAll removes every pod of the agent (--stop-pods-on-exit), concurrently (at most
// removeAllParallel at a time); one failure stops none of the others.
func (a *agent) removeAll(ctx context.Context) error {
	a.mu.Lock()
	names := slices.Sorted(maps.Keys(a.pods))
	a.mu.Unlock()
	var g errgroup.Group
	g.SetLimit(removeAllParallel)
	var mu sync.Mutex
	var errs []error
	for _, n := range names {
		g.Go(func() error {
			if err := a.removePod(ctx, n); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("remove %s: %w", n, err))
				mu.Unlock()
			}
			return nil
		})
	}
	_ = g.Wait()
	a.cfg.status.write(ctx, nil)
	return errors.Join(errs...)
}
