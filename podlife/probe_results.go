package podlife

import (
	"context"
	"sync"
)

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
