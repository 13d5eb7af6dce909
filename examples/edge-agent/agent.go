package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/podlife/podlife/podlife"
)

// errSuperseded cancels an operation whose target the manifests no longer ask for.
var errSuperseded = errors.New("superseded by a newer manifest")

// agentConfig is what an agent needs besides its runtime.
type agentConfig struct {
	source   *source
	records  recordStore
	status   *statusWriter
	interval time.Duration
	// retry is the back-off of a pod whose start failed: retry.Initial doubling up to retry.Max.
	retry podlife.Backoff
	// stopOnExit removes the agent's pods when Run returns; by default they keep running.
	stopOnExit bool
	log        *slog.Logger

	// prewarm keeps warm pool members of the desired pods' specs (--prewarm; nil: none).
	prewarm *prewarmer
}

// entry is a pod the agent owns.
type entry struct {
	actualPod
	pod      *podlife.Pod // set while Managed
	err      string       // the last operation's error
	failures int          // consecutive failed starts
	cancel   context.CancelCauseFunc
}

// agent keeps the host's pods equal to a directory of manifests.
type agent struct {
	rt  *podlife.Runtime
	cfg agentConfig

	kick chan struct{} // an operation ended, an event, a directory change: plan again at once
	wg   sync.WaitGroup

	mu    sync.Mutex
	pods  map[string]*entry
	files map[string]fileResult
}

func newAgent(rt *podlife.Runtime, cfg agentConfig) *agent {
	return &agent{rt: rt, cfg: cfg, kick: make(chan struct{}, 1), pods: map[string]*entry{}}
}

// run reconciles until ctx ends, then waits for the operations in flight (cancelling them)
// and, with stopOnExit, removes the agent's pods.
func (a *agent) run(ctx context.Context) error {
	if err := a.recover(ctx); err != nil {
		return err
	}
	opsCtx, cancelOps := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancelOps(nil)
	var watchers sync.WaitGroup
	defer watchers.Wait()
	watchers.Go(func() { a.watchEvents(ctx) })
	watchers.Go(func() {
		if err := watchDir(ctx, a.cfg.source.dir, a.kickNow); err != nil {
			a.cfg.log.Warn("no inotify: the directory is read every interval only", "err", err)
		}
	})
	t := time.NewTimer(a.cfg.interval)
	defer t.Stop()
	for {
		retry := a.reconcile(ctx, opsCtx)
		wait := a.cfg.interval
		if !retry.IsZero() {
			wait = max(min(wait, time.Until(retry)), 0)
		}
		t.Reset(wait)
		select {
		case <-ctx.Done():
			cancelOps(context.Cause(ctx))
			a.wg.Wait()
			a.cfg.prewarm.wait() // their members go with the runtime's Close
			if a.cfg.stopOnExit {
				err := a.removeAll(context.WithoutCancel(ctx))
				a.cfg.log.Info("exiting; pods removed", "err", err)
				return err
			}
			a.cfg.log.Info("exiting; pods keep running", "pods", len(a.pods))
			return nil
		case <-t.C:
		case <-a.kick:
		}
	}
}

// watchEvents logs the events of the agent's pods (container starts, exits, restarts, probe
// failures, back-offs) and has the status written again at once, until ctx ends.
func (a *agent) watchEvents(ctx context.Context) {
	for ev := range a.rt.Subscribe(ctx) {
		level := slog.LevelInfo
		if ev.Type == podlife.EventWarning {
			level = slog.LevelWarn
		}
		a.cfg.log.Log(ctx, level, "event", "pod", ev.Pod, "container", ev.Container, "reason", ev.Reason, "message", ev.Message)
		a.kickNow()
	}
}

// kickNow has the loop reconcile at once (kicks coalesce).
func (a *agent) kickNow() {
	select {
	case a.kick <- struct{}{}:
	default:
	}
}

// recover finds the pods of the agent's records: those that still exist are Found (adopted by
// the first plan), the records of those that do not are dropped.
func (a *agent) recover(ctx context.Context) error {
	recs, err := a.cfg.records.list()
	if err != nil {
		return err
	}
	for _, r := range recs {
		_, err := a.rt.LookupPod(ctx, r.Name)
		if errors.Is(err, podlife.ErrNotFound) {
			a.cfg.log.Info("pod of a record is gone", "pod", r.Name)
			if err := a.cfg.records.remove(r.Name); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("look up pod %s: %w", r.Name, err)
		}
		a.cfg.log.Info("found own pod", "pod", r.Name, "file", r.File)
		a.pods[r.Name] = &entry{actualPod: actualPod{Name: r.Name, File: r.File, Hash: r.Hash, State: stateFound}}
	}
	return nil
}

// reconcile reads the manifests, plans, starts the operations and writes the status. It
// returns when a failed pod is due to be tried again (the earliest), zero if none is.
func (a *agent) reconcile(ctx, opsCtx context.Context) (retry time.Time) {
	desired, files, broken, err := a.cfg.source.scan(ctx, a.owner)
	if err != nil {
		a.cfg.log.Error("scan", "err", err)
		return time.Time{} // a directory that cannot be read changes nothing
	}
	a.mu.Lock()
	for name, r := range files {
		if old, ok := a.files[name]; r.Error != "" && (!ok || old.Error != r.Error || old.Hash != r.Hash) {
			a.cfg.log.Error("manifest not applied", "file", name, "err", r.Error)
		}
	}
	a.files = files
	actual := make(map[string]actualPod, len(a.pods))
	for n, e := range a.pods {
		if e.State == stateManaged && e.Op == "" {
			if _, err := a.rt.Pod(n); errors.Is(err, podlife.ErrNotFound) {
				// Removed by someone else (podlife rm): forget it; the plan runs it again.
				a.cfg.log.Warn("pod removed behind the agent's back", "pod", n)
				if err := a.cfg.records.remove(n); err == nil {
					delete(a.pods, n)
					continue
				} else {
					a.cfg.log.Error("forget pod", "pod", n, "err", err) // tried again next time
				}
			}
		}
		if d, ok := desired[n]; ok && e.Op == "" && d.Hash == e.Hash {
			e.File = d.File // moved to another file, unchanged
		}
		actual[n] = e.actualPod
	}
	a.cfg.prewarm.sync(opsCtx, desired)
	for _, act := range plan(time.Now(), desired, broken, actual) {
		a.start(opsCtx, act)
	}
	for _, e := range a.pods {
		if e.State == stateFailed && e.Op == "" && (retry.IsZero() || e.RetryAt.Before(retry)) {
			retry = e.RetryAt
		}
	}
	a.mu.Unlock()
	st := a.snapshot(ctx)
	a.cfg.status.write(ctx, &st)
	return retry
}

// owner returns the manifest file pod was started from, "" if the agent has no such pod.
func (a *agent) owner(pod string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if e, ok := a.pods[pod]; ok {
		return e.File
	}
	return ""
}

// start begins act; a.mu is held.
func (a *agent) start(opsCtx context.Context, act action) {
	e := a.pods[act.Name]
	if act.Kind == actCancel {
		a.cfg.log.Info("cancel", "pod", act.Name)
		e.Cancelled = true
		e.cancel(errSuperseded)
		return
	}
	if e == nil {
		e = &entry{actualPod: actualPod{Name: act.Name}}
		a.pods[act.Name] = e
	}
	if act.Desired != nil {
		e.File, e.Hash = act.Desired.File, act.Desired.Hash
	}
	e.Op = act.Kind
	ctx, cancel := context.WithCancelCause(opsCtx)
	e.cancel = cancel
	a.cfg.log.Info(string(act.Kind), "pod", act.Name, "file", e.File)
	a.wg.Go(func() {
		defer cancel(nil)
		a.do(ctx, act)
		a.kickNow()
	})
}
