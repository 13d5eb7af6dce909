package metrics

import (
	"context"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

var eventsDesc = desc("podlife_events_total",
	"Events of the pods this process manages, by type and reason (Started, BackOff, Unhealthy, OOMKilling, Killing, ...), since CountEvents began.",
	[]string{"type", "reason"})

// eventCounts counts a Runtime's events by type and reason.
type eventCounts struct {
	mu sync.Mutex
	n  map[[2]string]uint64
}

// CountEvents counts the events of the pods the Runtime manages (see podlife.Runtime.Subscribe)
// into podlife_events_total{type,reason}, until ctx ends: restarts and their back-offs, probe
// failures, OOM kills, stops, adoptions, whatever reason the kubelet or podlife gives them. From
// the same events it observes kubelet_pod_start_duration_seconds (once per pod, when its Started
// event finds all its containers running), and from every probe result
// (podlife.Runtime.SubscribeProbes) it counts prober_probe_total (successful, failed and unknown)
// and observes prober_probe_duration_seconds. Run it in a goroutine of its own; without it these
// series are absent. Pods of other processes have their events and probes there.
func (c *Collector) CountEvents(ctx context.Context) {
	c.events.mu.Lock()
	if c.events.n == nil {
		c.events.n = map[[2]string]uint64{}
	}
	c.events.mu.Unlock()
	probes := c.rt.SubscribeProbes(ctx)
	probed := make(chan struct{})
	go func() {
		defer close(probed)
		for r := range probes {
			c.probeResult(r)
		}
	}()
	defer func() { <-probed }()
	for e := range c.rt.Subscribe(ctx) {
		c.events.mu.Lock()
		c.events.n[[2]string{string(e.Type), string(e.Reason)}]++
		c.events.mu.Unlock()
		c.lifecycleEvent(e)
	}
}

// collectEvents sends the counts, and what CountEvents derives from the events (lifecycle.go)
// once it has begun.
func (c *Collector) collectEvents(ch chan<- prometheus.Metric) {
	c.events.mu.Lock()
	counting := c.events.n != nil
	for k, n := range c.events.n {
		ch <- prometheus.MustNewConstMetric(eventsDesc, prometheus.CounterValue, float64(n), k[0], k[1])
	}
	c.events.mu.Unlock()
	if counting {
		c.collectLifecycle(ch)
	}
}
