package main

import (
	"context"
	"errors"
	"sync"

	"github.com/podlife/podlife/podlife"
)

// prewarmer keeps, with --prewarm N, a warm pool of N members for each desired pod's spec
// (podlife.Runtime.Prewarm): a pod the agent runs again (it ended under restartPolicy Always,
// its start failed, it was removed behind the agent's back) then starts from a member, its
// processes only. A manifest that changes or goes drops its pool.
type prewarmer struct {
	rt  *podlife.Runtime
	n   int
	log interface {
		Warn(msg string, args ...any)
	}

	mu     sync.Mutex
	pools  map[string]podlife.PodSpec // by manifest hash: the specs whose pool is kept
	failed map[string]bool            // hashes whose spec cannot be pooled (logged once)
	wg     sync.WaitGroup
}

// sync sets the pools to the desired pods' specs: a pool for each new one, none for those no
// longer desired. The Prewarm calls run in the background (a member takes a pod start's time).
func (w *prewarmer) sync(ctx context.Context, desired map[string]desiredPod) {
	if w == nil || w.n <= 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	want := map[string]podlife.PodSpec{}
	for _, d := range desired {
		if !w.failed[d.Hash] {
			want[d.Hash] = d.Spec
		}
	}
	for hash, spec := range w.pools {
		if _, ok := want[hash]; !ok {
			delete(w.pools, hash)
			w.prewarm(ctx, hash, spec, 0)
		}
	}
	for hash, spec := range want {
		if _, ok := w.pools[hash]; !ok {
			w.pools[hash] = spec
			w.prewarm(ctx, hash, spec, w.n)
		}
	}
}

// prewarm calls Prewarm in the background; w.mu is held.
func (w *prewarmer) prewarm(ctx context.Context, hash string, spec podlife.PodSpec, n int) {
	w.wg.Go(func() {
		err := w.rt.Prewarm(ctx, spec, n)
		switch {
		case err == nil || ctx.Err() != nil:
		case errors.Is(err, podlife.ErrNotPoolable):
			w.log.Warn("pod not prewarmed", "pod", spec.Name, "err", err)
			w.mu.Lock()
			w.failed[hash] = true
			delete(w.pools, hash)
			w.mu.Unlock()
		default:
			w.log.Warn("prewarm", "pod", spec.Name, "err", err)
		}
	})
}

// wait waits for the Prewarm calls in flight (their ctx ended: Close removes the members).
func (w *prewarmer) wait() {
	if w != nil {
		w.wg.Wait()
	}
}

// newPrewarmer returns the prewarmer of --prewarm n (nil for 0).
func newPrewarmer(rt *podlife.Runtime, n int, log interface{ Warn(string, ...any) }) *prewarmer {
	if n <= 0 {
		return nil
	}
	return &prewarmer{rt: rt, n: n, log: log, pools: map[string]podlife.PodSpec{}, failed: map[string]bool{}}
}
