package stats

import (
	"sync"
	"time"
)

// rateCache keeps the previous CPU sample of each container (and of the node) to give the
// Summary API's usageNanoCores, a rate, from cumulative counters, as the kubelet's stats
// provider keeps the last sample of each container ID. A sample of another attempt (a
// restarted container, whose counter starts again) or a counter that went back replaces the
// previous one and gives no rate, as the kubelet gives none for a container's first sample.
// It is safe for concurrent use; the zero value is ready.
type rateCache struct {
	mu   sync.Mutex
	prev map[string]cpuPoint
}

// cpuPoint is one CPU sample and the rate computed when it was stored.
type cpuPoint struct {
	attempt int
	at      time.Time
	nanos   uint64
	rate    *uint64
}

// rateMinInterval is the shortest interval a rate is computed over: a request closer to the
// previous sample gets the rate computed then, and does not replace that sample.
const rateMinInterval = time.Second

// rateMaxAge drops the samples of containers not asked about for that long (removed pods).
const rateMaxAge = 10 * time.Minute

// rate returns the CPU in nanocores between the previous sample of key and this one (nanos
// nanoseconds of CPU at time at, attempt attempt), nil if there is no usable previous sample.
func (c *rateCache) rate(key string, attempt int, at time.Time, nanos uint64) *uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.prev == nil {
		c.prev = map[string]cpuPoint{}
	}
	cur := cpuPoint{attempt: attempt, at: at, nanos: nanos}
	p, ok := c.prev[key]
	if !ok || p.attempt != attempt || nanos < p.nanos || !at.After(p.at) {
		c.prev[key] = cur
		return nil
	}
	dt := at.Sub(p.at)
	if dt < rateMinInterval {
		return p.rate
	}
	r := uint64(float64(nanos-p.nanos) / dt.Seconds())
	cur.rate = &r
	c.prev[key] = cur
	return cur.rate
}

// prune forgets the samples older than rateMaxAge at now.
func (c *rateCache) prune(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, p := range c.prev {
		if now.Sub(p.at) > rateMaxAge {
			delete(c.prev, k)
		}
	}
}
