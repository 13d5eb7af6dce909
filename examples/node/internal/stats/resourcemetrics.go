package stats

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	statsv1alpha1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
)

// The kubelet's resource metrics (pkg/kubelet/metrics/collectors/resource_metrics.go), what
// metrics-server scrapes for `kubectl top`: same names, help texts, labels and timestamps.
var (
	ctrResLabels     = []string{"container", "pod", "namespace"}
	podResLabels     = []string{"pod", "namespace"}
	nodeCPUResDesc   = prometheus.NewDesc("node_cpu_usage_seconds_total", "Cumulative cpu time consumed by the node in core-seconds", nil, nil)
	nodeMemResDesc   = prometheus.NewDesc("node_memory_working_set_bytes", "Current working set of the node in bytes", nil, nil)
	ctrCPUResDesc    = prometheus.NewDesc("container_cpu_usage_seconds_total", "Cumulative cpu time consumed by the container in core-seconds", ctrResLabels, nil)
	ctrMemResDesc    = prometheus.NewDesc("container_memory_working_set_bytes", "Current working set of the container in bytes", ctrResLabels, nil)
	ctrStartResDesc  = prometheus.NewDesc("container_start_time_seconds", "Start time of the container since unix epoch in seconds", ctrResLabels, nil)
	podCPUResDesc    = prometheus.NewDesc("pod_cpu_usage_seconds_total", "Cumulative cpu time consumed by the pod in core-seconds", podResLabels, nil)
	podMemResDesc    = prometheus.NewDesc("pod_memory_working_set_bytes", "Current working set of the pod in bytes", podResLabels, nil)
	scrapeErrResDesc = prometheus.NewDesc("scrape_error", "1 if there was an error while getting container metrics, 0 otherwise", nil, nil)
	resScrapeErrDesc = prometheus.NewDesc("resource_scrape_error", "1 if there was an error while getting container metrics, 0 otherwise", nil, nil)
	resourceDescs    = []*prometheus.Desc{nodeCPUResDesc, nodeMemResDesc, ctrCPUResDesc, ctrMemResDesc, ctrStartResDesc, podCPUResDesc, podMemResDesc, scrapeErrResDesc, resScrapeErrDesc}
)

// Resource returns the resource metrics of a Summary, what the kubelet's resource metrics
// endpoint (/metrics/resource) serves.
func Resource(s *statsv1alpha1.Summary) ([]*dto.MetricFamily, error) {
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(resourceCollector{s: s}); err != nil {
		return nil, err
	}
	return reg.Gather()
}

// resourceCollector sends a Summary's resource metrics.
type resourceCollector struct {
	s *statsv1alpha1.Summary
}

// Describe sends the resource metrics' descriptors.
func (c resourceCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range resourceDescs {
		ch <- d
	}
}

// Collect sends the Summary's values. scrape_error and resource_scrape_error are 0: a pod
// whose usage could not be sampled is left out, as the kubelet leaves out a container
// without stats.
func (c resourceCollector) Collect(ch chan<- prometheus.Metric) {
	n := c.s.Node
	if n.CPU != nil && n.CPU.UsageCoreNanoSeconds != nil {
		ch <- stamped(n.CPU.Time.Time, nodeCPUResDesc, prometheus.CounterValue, seconds(*n.CPU.UsageCoreNanoSeconds))
	}
	if n.Memory != nil && n.Memory.WorkingSetBytes != nil {
		ch <- stamped(n.Memory.Time.Time, nodeMemResDesc, prometheus.GaugeValue, float64(*n.Memory.WorkingSetBytes))
	}
	for _, p := range c.s.Pods {
		for _, ct := range p.Containers {
			l := []string{ct.Name, p.PodRef.Name, p.PodRef.Namespace}
			if ct.StartTime.Unix() > 0 {
				ch <- prometheus.MustNewConstMetric(ctrStartResDesc, prometheus.GaugeValue,
					float64(ct.StartTime.UnixNano())/float64(time.Second), l...)
			}
			if ct.CPU != nil && ct.CPU.UsageCoreNanoSeconds != nil {
				ch <- stamped(ct.CPU.Time.Time, ctrCPUResDesc, prometheus.CounterValue, seconds(*ct.CPU.UsageCoreNanoSeconds), l...)
			}
			if ct.Memory != nil && ct.Memory.WorkingSetBytes != nil {
				ch <- stamped(ct.Memory.Time.Time, ctrMemResDesc, prometheus.GaugeValue, float64(*ct.Memory.WorkingSetBytes), l...)
			}
		}
		l := []string{p.PodRef.Name, p.PodRef.Namespace}
		if p.CPU != nil && p.CPU.UsageCoreNanoSeconds != nil {
			ch <- stamped(p.CPU.Time.Time, podCPUResDesc, prometheus.CounterValue, seconds(*p.CPU.UsageCoreNanoSeconds), l...)
		}
		if p.Memory != nil && p.Memory.WorkingSetBytes != nil {
			ch <- stamped(p.Memory.Time.Time, podMemResDesc, prometheus.GaugeValue, float64(*p.Memory.WorkingSetBytes), l...)
		}
	}
	ch <- prometheus.MustNewConstMetric(scrapeErrResDesc, prometheus.GaugeValue, 0)
	ch <- prometheus.MustNewConstMetric(resScrapeErrDesc, prometheus.GaugeValue, 0)
}

// stamped is a constant metric with the time its value was read, as the kubelet stamps them.
func stamped(t time.Time, d *prometheus.Desc, vt prometheus.ValueType, v float64, labels ...string) prometheus.Metric {
	m := prometheus.MustNewConstMetric(d, vt, v, labels...)
	if t.IsZero() {
		return m
	}
	return prometheus.NewMetricWithTimestamp(t, m)
}

func seconds(nanos uint64) float64 { return float64(nanos) / float64(time.Second) }
