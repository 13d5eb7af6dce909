package metrics

import (
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/podlife/podlife/podlife"
)

// The kubelet's pod start histogram and probe counter, derived from the events of the pods
// this process manages (CountEvents).
var (
	// startBuckets are the kubelet's for kubelet_pod_start_duration_seconds.
	startBuckets = []float64{0.5, 1, 2, 3, 4, 5, 6, 8, 10, 20, 30, 45, 60, 120, 180, 240, 300, 360, 480, 600, 900, 1200, 1800, 2700, 3600}
	probeDesc    = desc("prober_probe_total",
		"Cumulative number of a liveness, readiness or startup probe for a container by result (failed and unknown only: podlife reports no event for a success).",
		[]string{"probe_type", "result", "container", "pod", "namespace", "pod_uid"})
)

// lifecycle is what CountEvents derives beyond the counts of events.
type lifecycle struct {
	start  prometheus.Histogram
	mu     sync.Mutex
	probes map[[6]string]uint64
	// started are the pods (by UID) whose start was observed; pods are the namespace and UID
	// of the pods events name (by pod name), looked up once.
	started map[string]bool
	pods    map[string][2]string
}

func newLifecycle() *lifecycle {
	return &lifecycle{
		start: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "kubelet_pod_start_duration_seconds",
			Help:    "Duration in seconds from the Runtime accepting a pod to all its containers running (observed once per pod, by CountEvents).",
			Buckets: startBuckets,
		}),
		probes: map[[6]string]uint64{}, started: map[string]bool{}, pods: map[string][2]string{},
	}
}

// lifecycleEvent updates the start histogram and the probe counts with one event.
func (c *Collector) lifecycleEvent(e podlife.Event) {
	switch e.Reason {
	case podlife.ReasonStarted:
		c.observeStart(e.Pod)
	case podlife.ReasonUnhealthy:
		kind, result, ok := probeResult(e.Message)
		if !ok {
			return
		}
		ns, uid := c.podRef(e.Pod)
		l := c.life
		l.mu.Lock()
		l.probes[[6]string{kind, result, e.Container, e.Pod, ns, uid}]++
		l.mu.Unlock()
	case podlife.ReasonRemoved:
		l := c.life
		l.mu.Lock()
		if ref, ok := l.pods[e.Pod]; ok {
			delete(l.started, ref[1])
			delete(l.pods, e.Pod)
		}
		l.mu.Unlock()
	}
}

// observeStart observes the pod's start duration the first time all its app containers run:
// from its status's StartTime (when the Runtime accepted it) to the latest container start.
func (c *Collector) observeStart(name string) {
	p, err := c.rt.Pod(name)
	if err != nil {
		return
	}
	st := p.Status()
	if st.StartTime.IsZero() || len(st.ContainerStatuses) == 0 {
		return
	}
	var last time.Time
	for _, cs := range st.ContainerStatuses {
		if cs.State.Running == nil {
			return
		}
		if cs.State.Running.StartedAt.After(last) {
			last = cs.State.Running.StartedAt
		}
	}
	uid := p.UID()
	l := c.life
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.started[uid] {
		return
	}
	l.started[uid] = true
	l.start.Observe(max(last.Sub(st.StartTime), 0).Seconds())
}

// podRef returns the namespace and UID of the pod named name.
func (c *Collector) podRef(name string) (string, string) {
	l := c.life
	l.mu.Lock()
	ref, ok := l.pods[name]
	l.mu.Unlock()
	if ok {
		return ref[0], ref[1]
	}
	p, err := c.rt.Pod(name)
	if err != nil {
		return "", ""
	}
	ref = [2]string{p.Spec().Namespace, p.UID()}
	l.mu.Lock()
	l.pods[name] = ref
	l.mu.Unlock()
	return ref[0], ref[1]
}

// probeResult parses an Unhealthy event's message ("Liveness probe failed: ...", "Readiness
// probe errored and resulted in unknown state: ...") into the kubelet's probe_type and result.
func probeResult(msg string) (kind, result string, ok bool) {
	kind, rest, ok := strings.Cut(msg, " probe ")
	if !ok || (kind != "Liveness" && kind != "Readiness" && kind != "Startup") {
		return "", "", false
	}
	switch {
	case strings.HasPrefix(rest, "failed"):
		return kind, "failed", true
	case strings.HasPrefix(rest, "errored"):
		return kind, "unknown", true
	}
	return "", "", false
}

// collectLifecycle sends the start histogram and the probe counts.
func (c *Collector) collectLifecycle(ch chan<- prometheus.Metric) {
	l := c.life
	ch <- l.start
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, n := range l.probes {
		ch <- prometheus.MustNewConstMetric(probeDesc, prometheus.CounterValue, float64(n), k[:]...)
	}
}
