package podlife

import (
	"context"
	"sync"
	"time"

	"github.com/podlife/podlife/probe"
)

// ProbeResult is the result of one probe of a container of a pod this Runtime manages, before
// thresholds are applied: one a probe period (see Runtime.SubscribeProbes). It is what the
// kubelet's prober_probe_total and prober_probe_duration_seconds count.
type ProbeResult struct {
	// Time is when the probe ended.
	Time time.Time
	// Pod, Namespace and PodUID name the pod; Container is the probed container's name.
	Pod, Namespace, PodUID, Container string
	// Kind is the probe's: Startup, Readiness or Liveness.
	Kind probe.Kind
	// Result is the prober's own: Success, Warning (counted as Success), Failure (a timeout
	// included) or Unknown; Unknown too for a period discarded because the prober returned an
	// error on every attempt (an Unhealthy event "... probe errored ..." tells the error).
	Result probe.Result
	// Duration is how long the probe took (its last attempt), on the real clock; 0 for a
	// discarded period.
	Duration time.Duration
}

// probeBuffer is how many results a SubscribeProbes subscriber may lag behind before it loses
// some.
const probeBuffer = 1024

// SubscribeProbes returns the result of every probe of the pods this Runtime manages from now
// on, successes included (Subscribe's events have the failures only, with the prober's
// message). The channel is closed when ctx is done. Delivery never blocks a probe: a
// subscriber more than 1024 results behind loses results. Probes of pods other processes
// manage run there, and are not seen here.
func (r *Runtime) SubscribeProbes(ctx context.Context) <-chan ProbeResult {
	return r.probes.subscribe(ctx)
}

// probeFanOut delivers probe results to SubscribeProbes's subscribers. The zero value has none.
type probeFanOut struct {
	mu   sync.Mutex
	subs map[chan ProbeResult]struct{}
}

func (f *probeFanOut) subscribe(ctx context.Context) <-chan ProbeResult {
	ch := make(chan ProbeResult, probeBuffer)
	f.mu.Lock()
	if f.subs == nil {
		f.subs = map[chan ProbeResult]struct{}{}
	}
	f.subs[ch] = struct{}{}
	f.mu.Unlock()
	go func() {
		<-ctx.Done()
		f.mu.Lock()
		delete(f.subs, ch)
		close(ch) // under the lock: publish never sends on it after
		f.mu.Unlock()
	}()
	return ch
}

// publish delivers res to every subscriber that has room for it, without blocking.
func (f *probeFanOut) publish(res ProbeResult) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for ch := range f.subs {
		select {
		case ch <- res:
		default: // too far behind: lost
		}
	}
}

// publishProbe publishes a probe result of container c.
func (c *Container) publishProbe(kind probe.Kind, r probe.Result, took time.Duration) {
	p := c.pod
	p.rt.probes.publish(ProbeResult{Time: time.Now(), Pod: p.name, Namespace: p.spec.Namespace, PodUID: p.uid,
		Container: c.spec.Name, Kind: kind, Result: r, Duration: took})
}
