package metrics

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/podlife/podlife/podlife"
)

// Collector is a prometheus.Collector of the pods of a Runtime's state directory, whichever
// process manages them (see podlife.Runtime.ListPods): each scrape lists them and samples the
// usage of all of them at once (podlife.Runtime.Usage), reporting those with a running
// container. Register it with a prometheus.Registry. It is safe for concurrent use.
type Collector struct {
	rt      *podlife.Runtime
	timeout time.Duration
	noDisk  bool
	errors  atomic.Uint64
	events  eventCounts
	life    *lifecycle
}

// Option configures a Collector.
type Option func(*Collector)

// WithTimeout bounds what one scrape asks containerd (default 10 s): the pods not sampled by
// then are left out of it and counted in podlife_scrape_errors_total.
func WithTimeout(d time.Duration) Option { return func(c *Collector) { c.timeout = d } }

// WithoutDiskUsage leaves out podlife_pod_log_bytes and podlife_pod_volume_bytes, which walk
// each pod's log and volume directories at every scrape (see podlife.Pod.DiskUsage).
func WithoutDiskUsage() Option { return func(c *Collector) { c.noDisk = true } }

// NewCollector returns a collector of rt's pods.
func NewCollector(rt *podlife.Runtime, opts ...Option) *Collector {
	c := &Collector{rt: rt, timeout: 10 * time.Second, life: newLifecycle()}
	for _, o := range opts {
		o(c)
	}
	return c
}

var (
	ctrLabels  = []string{"namespace", "pod", "container"}
	netLabels  = []string{"namespace", "pod", "interface"}
	podLabels  = []string{"namespace", "pod"}
	cpuDesc    = desc("container_cpu_usage_seconds_total", "Cumulative CPU time the container consumed, in core-seconds.", ctrLabels)
	wsDesc     = desc("container_memory_working_set_bytes", "Current working set of the container: memory usage less the inactive file cache.", ctrLabels)
	memDesc    = desc("container_memory_usage_bytes", "Current memory usage of the container, page cache included.", ctrLabels)
	rssDesc    = desc("container_memory_rss", "Anonymous memory (RSS) of the container.", ctrLabels)
	limitDesc  = desc("container_spec_memory_limit_bytes", "Memory limit of the container.", ctrLabels)
	oomDesc    = desc("container_oom_events_total", "Processes of the container's current attempt killed by the kernel's OOM killer.", ctrLabels)
	procDesc   = desc("container_processes", "Number of processes (threads included) running in the container.", ctrLabels)
	restDesc   = desc("kube_pod_container_status_restarts_total", "Number of restarts of the container.", ctrLabels)
	readyDesc  = desc("kube_pod_container_status_ready", "Whether the container's readiness check succeeded (1) or not (0).", ctrLabels)
	runDesc    = desc("kube_pod_container_status_running", "Whether the container is running (1) or not (0).", ctrLabels)
	termDesc   = desc("kube_pod_container_status_last_terminated_reason", "The reason the container's previous attempt ended (OOMKilled, Error, ...).", append(ctrLabels[:3:3], "reason"))
	phaseDesc  = desc("kube_pod_status_phase", "The pod's phase (1 for the current one).", append(podLabels[:2:2], "phase"))
	manDesc    = desc("podlife_pod_managed", "Whether a live process supervises the pod (1) or none does (0): nothing restarts or probes an unmanaged pod.", podLabels)
	logDesc    = desc("podlife_pod_log_bytes", "Disk space of the pod's container log files.", podLabels)
	volDesc    = desc("podlife_pod_volume_bytes", "Disk space of the pod's emptyDir and files volumes on disk (not Memory-medium ones).", podLabels)
	errDesc    = desc("podlife_scrape_errors_total", "Pods whose usage a scrape could not sample (containerd unavailable, timeout).", nil)
	netDescs   = [8]*prometheus.Desc{}
	netNames   = [8]string{"receive_bytes", "receive_packets", "receive_errors", "receive_packets_dropped", "transmit_bytes", "transmit_packets", "transmit_errors", "transmit_packets_dropped"}
	phases     = []podlife.Phase{podlife.PhasePending, podlife.PhaseRunning, podlife.PhaseSucceeded, podlife.PhaseFailed}
	staticDesc = []*prometheus.Desc{cpuDesc, wsDesc, memDesc, rssDesc, limitDesc, oomDesc, procDesc, restDesc, readyDesc, runDesc, termDesc, phaseDesc, manDesc, logDesc, volDesc, errDesc}
)

func init() {
	for i, n := range netNames {
		netDescs[i] = desc("container_network_"+n+"_total", "Cumulative count of the pod network interface's "+n+".", netLabels)
	}
}

func desc(name, help string, labels []string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

// Describe sends the descriptors of every metric the collector may send.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range staticDesc {
		ch <- d
	}
	for _, d := range netDescs {
		ch <- d
	}
	ch <- eventsDesc
	ch <- probeDesc
	c.life.start.Describe(ch)
	c.life.step.Describe(ch)
	c.life.probeTime.Describe(ch)
}

// Collect lists the pods and samples their usage (see the package doc).
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	c.collect(ctx, ch)
	c.collectEvents(ch)
	ch <- prometheus.MustNewConstMetric(errDesc, prometheus.CounterValue, float64(c.errors.Load()))
}

func (c *Collector) collect(ctx context.Context, ch chan<- prometheus.Metric) {
	recs, err := c.rt.ListPods(ctx)
	if err != nil {
		c.errors.Add(1)
		return
	}
	var sampled map[string]podlife.PodUsage // by pod UID; nil if the sample failed
	for _, rec := range recs {
		if anyRunning(rec.Status) {
			sampled = c.sampleAll(ctx)
			break
		}
	}
	for _, rec := range recs {
		c.status(ch, rec)
		if !c.noDisk {
			p, err := c.rt.Pod(rec.Name)
			if err != nil {
				c.errors.Add(1)
			} else if du, err := p.DiskUsage(ctx); err == nil {
				ch <- gauge(logDesc, float64(du.Logs), rec.Namespace, rec.Name)
				ch <- gauge(volDesc, float64(du.Volumes), rec.Namespace, rec.Name)
			} else if !errors.Is(err, podlife.ErrNotFound) {
				c.errors.Add(1)
			}
		}
		if !anyRunning(rec.Status) {
			continue
		}
		u, ok := sampled[rec.UID]
		if !ok {
			c.errors.Add(1)
			continue
		}
		usage(ch, rec.Namespace, u)
	}
}

// sampleAll samples every pod's usage at once (podlife.Runtime.Usage), by pod UID; nil if it
// failed (each pod with a running container then counts as a scrape error).
func (c *Collector) sampleAll(ctx context.Context) map[string]podlife.PodUsage {
	all, err := c.rt.Usage(ctx)
	if err != nil {
		return nil
	}
	out := make(map[string]podlife.PodUsage, len(all))
	for _, u := range all {
		out[u.UID] = u
	}
	return out
}

// status sends what the pod's status says.
func (c *Collector) status(ch chan<- prometheus.Metric, rec podlife.PodRecord) {
	ns, pod, st := rec.Namespace, rec.Name, rec.Status
	for _, ph := range phases {
		ch <- gauge(phaseDesc, bool01(st.Phase == ph), ns, pod, string(ph))
	}
	ch <- gauge(manDesc, bool01(rec.Managed()), ns, pod)
	for _, list := range [][]podlife.ContainerStatus{st.InitContainerStatuses, st.ContainerStatuses} {
		for _, cs := range list {
			ch <- prometheus.MustNewConstMetric(restDesc, prometheus.CounterValue, float64(cs.RestartCount), ns, pod, cs.Name)
			ch <- gauge(readyDesc, bool01(cs.Ready), ns, pod, cs.Name)
			ch <- gauge(runDesc, bool01(cs.State.Running != nil), ns, pod, cs.Name)
			if t := cs.LastState.Terminated; t != nil && t.Reason != "" {
				ch <- gauge(termDesc, 1, ns, pod, cs.Name, string(t.Reason))
			}
		}
	}
}

// usage sends a pod's sampled usage.
func usage(ch chan<- prometheus.Metric, ns string, u podlife.PodUsage) {
	for _, cu := range u.Containers {
		l := []string{ns, u.Name, cu.Name}
		ch <- prometheus.MustNewConstMetric(cpuDesc, prometheus.CounterValue, cu.CPU.Seconds(), l...)
		ch <- gauge(wsDesc, float64(cu.MemoryWorkingSet), l...)
		ch <- gauge(memDesc, float64(cu.MemoryUsage), l...)
		ch <- gauge(rssDesc, float64(cu.MemoryRSS), l...)
		if cu.MemoryLimit != 0 && cu.MemoryLimit < 1<<62 { // no limit reads as a huge value
			ch <- gauge(limitDesc, float64(cu.MemoryLimit), l...)
		}
		ch <- prometheus.MustNewConstMetric(oomDesc, prometheus.CounterValue, float64(cu.OOMKills), l...)
		ch <- gauge(procDesc, float64(cu.Processes), l...)
	}
	if u.Network == nil {
		return
	}
	for _, iface := range u.Network.Interfaces {
		if iface.Name == "lo" {
			continue
		}
		v := [8]uint64{iface.RxBytes, iface.RxPackets, iface.RxErrors, iface.RxDropped, iface.TxBytes, iface.TxPackets, iface.TxErrors, iface.TxDropped}
		for i, d := range netDescs {
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v[i]), ns, u.Name, iface.Name)
		}
	}
}

func anyRunning(st podlife.PodStatus) bool {
	for _, list := range [][]podlife.ContainerStatus{st.InitContainerStatuses, st.ContainerStatuses, st.EphemeralContainerStatuses} {
		for _, cs := range list {
			if cs.State.Running != nil {
				return true
			}
		}
	}
	return false
}

func gauge(d *prometheus.Desc, v float64, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func bool01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
