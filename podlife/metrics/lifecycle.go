package metrics

import (
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
	"github.com/podlife/podlife/probe"
)

// The kubelet's pod start histogram, derived from the events of the pods this process manages,
// and its probe counter and duration histogram, from their probe results (CountEvents).
var (
	// startBuckets are the kubelet's for kubelet_pod_start_duration_seconds.
	startBuckets = []float64{0.5, 1, 2, 3, 4, 5, 6, 8, 10, 20, 30, 45, 60, 120, 180, 240, 300, 360, 480, 600, 900, 1200, 1800, 2700, 3600}
	probeDesc    = desc("prober_probe_total",
		"Cumulative number of a liveness, readiness or startup probe for a container by result.",
		[]string{"probe_type", "result", "container", "pod", "namespace", "pod_uid"})
)

// lifecycle is what CountEvents derives beyond the counts of events.
type lifecycle struct {
	start     prometheus.Histogram
	step      *prometheus.HistogramVec
	probeTime *prometheus.HistogramVec
	mu        sync.Mutex
	probes    map[[6]string]uint64
	// started are the pods (by UID) whose start was observed; pods are their UIDs by name,
	// to forget them when they are removed.
	started map[string]bool
	pods    map[string]string
	// marks are the last step of each container of a pod ({pod, container}) and its time, what
	// the next step is measured from.
	marks map[[2]string]stepMark
}

// stepMark is the event a container's last start step ended with, and when.
type stepMark struct {
	reason podlife.Reason
	at     time.Time
}

func newLifecycle() *lifecycle {
	return &lifecycle{
		start: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "kubelet_pod_start_duration_seconds",
			Help:    "Duration in seconds from the Runtime accepting a pod to all its containers running (observed once per pod, by CountEvents).",
			Buckets: startBuckets,
		}),
		probeTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "prober_probe_duration_seconds",
			Help: "Duration in seconds for a probe response (by CountEvents; not for a period whose prober errored).",
		}, []string{"probe_type", "container", "pod", "namespace"}),
		step: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "podlife_start_step_duration_seconds",
			Help: "Duration in seconds of each step of a pod's start sequence (by CountEvents): sandbox (accepted to sandbox ready), create (image present to container created), start (created to started), post_start (started to its postStart hook completed).",
		}, []string{"step"}),
		probes: map[[6]string]uint64{}, started: map[string]bool{}, pods: map[string]string{},
		marks: map[[2]string]stepMark{},
	}
}

// stepEvent observes a start-sequence step that the event e ends, measured from the step
// before it (the container's previous mark).
func (c *Collector) stepEvent(e podlife.Event) {
	l := c.life
	key := [2]string{e.Pod, e.Container}
	l.mu.Lock()
	defer l.mu.Unlock()
	// since observes step if the container's last mark is the event that step starts from (a
	// restart's Created after a Started is not a create step: its Pulled comes first).
	since := func(step string, from podlife.Reason) {
		if m, ok := l.marks[key]; ok && m.reason == from && !e.Time.Before(m.at) {
			l.step.WithLabelValues(step).Observe(e.Time.Sub(m.at).Seconds())
		}
	}
	switch e.Reason {
	case reasons.Pulled:
	case reasons.Created:
		since("create", reasons.Pulled)
	case reasons.Started:
		since("start", reasons.Created)
	case reasons.PostStartCompleted:
		since("post_start", reasons.Started)
	default:
		return
	}
	l.marks[key] = stepMark{reason: e.Reason, at: e.Time}
}

// sandboxStep observes the sandbox step of the pod whose SandboxReady event e is: from its
// status's StartTime (when the Runtime accepted it).
func (c *Collector) sandboxStep(e podlife.Event) {
	p, err := c.rt.Pod(e.Pod)
	if err != nil {
		return
	}
	if st := p.Status(); !st.StartTime.IsZero() && !e.Time.Before(st.StartTime) {
		c.life.step.WithLabelValues("sandbox").Observe(e.Time.Sub(st.StartTime).Seconds())
	}
}

// lifecycleEvent updates the start histogram with one event.
func (c *Collector) lifecycleEvent(e podlife.Event) {
	c.stepEvent(e)
	switch e.Reason {
	case reasons.SandboxReady:
		c.sandboxStep(e)
	case reasons.Started:
		c.observeStart(e.Pod)
	case reasons.Removed:
		l := c.life
		l.mu.Lock()
		if uid, ok := l.pods[e.Pod]; ok {
			delete(l.started, uid)
			delete(l.pods, e.Pod)
		}
		for k := range l.marks {
			if k[0] == e.Pod {
				delete(l.marks, k)
			}
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
	l.pods[name] = uid
	l.start.Observe(max(last.Sub(st.StartTime), 0).Seconds())
}

// probeResult counts one probe's result in prober_probe_total with the kubelet's result label
// (successful, failed, unknown; a Warning is a success) and observes its duration.
func (c *Collector) probeResult(r podlife.ProbeResult) {
	result := "unknown"
	switch r.Result {
	case probe.Success, probe.Warning:
		result = "successful"
	case probe.Failure:
		result = "failed"
	}
	kind := probeType(r.Kind)
	l := c.life
	l.mu.Lock()
	l.probes[[6]string{kind, result, r.Container, r.Pod, r.Namespace, r.PodUID}]++
	l.mu.Unlock()
	if r.Duration > 0 {
		l.probeTime.WithLabelValues(kind, r.Container, r.Pod, r.Namespace).Observe(r.Duration.Seconds())
	}
}

// probeType is the kubelet's probe_type label: "Liveness", "Readiness", "Startup".
func probeType(k probe.Kind) string {
	s := k.String()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// collectLifecycle sends the start histogram and the probe counts.
func (c *Collector) collectLifecycle(ch chan<- prometheus.Metric) {
	l := c.life
	ch <- l.start
	l.step.Collect(ch)
	l.probeTime.Collect(ch)
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, n := range l.probes {
		ch <- prometheus.MustNewConstMetric(probeDesc, prometheus.CounterValue, float64(n), k[:]...)
	}
}
