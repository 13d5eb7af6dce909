package main

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/virtual-kubelet/virtual-kubelet/node/api"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	statsv1alpha1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
	"k8s.io/utils/ptr"
)

// The rate is the counter's increase over the time between two samples of one attempt; a
// first sample, a restarted container (another attempt) or a counter that went back gives
// none; a sample closer than rateMinInterval to the previous one gets the previous rate.
func TestRateCache(t *testing.T) {
	var c rateCache
	t0 := time.Unix(1000, 0)
	if r := c.rate("k", 0, t0, 1e9); r != nil {
		t.Fatalf("first sample: rate %d, want none", *r)
	}
	r := c.rate("k", 0, t0.Add(2*time.Second), 2e9) // 1 s of CPU in 2 s
	if r == nil || *r != 5e8 {
		t.Fatalf("rate %v, want 5e8 nanocores", r)
	}
	if r2 := c.rate("k", 0, t0.Add(2500*time.Millisecond), 2.4e9); r2 == nil || *r2 != 5e8 {
		t.Fatalf("sample 0.5 s later: rate %v, want the previous one", r2)
	}
	if r := c.rate("k", 1, t0.Add(4*time.Second), 1e8); r != nil {
		t.Fatalf("restarted container: rate %d, want none", *r)
	}
	if r := c.rate("k", 1, t0.Add(6*time.Second), 2.1e9); r == nil || *r != 1e9 {
		t.Fatalf("restarted container's second sample: rate %v, want 1e9", r)
	}
	if r := c.rate("k", 1, t0.Add(8*time.Second), 1e9); r != nil {
		t.Fatalf("counter went back: rate %d, want none", *r)
	}
	c.prune(t0.Add(8*time.Second + rateMaxAge + time.Second))
	if len(c.prev) != 0 {
		t.Fatalf("prune left %v", c.prev)
	}
}

// /metrics/resource, served by virtual-kubelet's handler, has the kubelet's metric names,
// labels and values (in seconds), stamped with the samples' times.
func TestResourceMetrics(t *testing.T) {
	at := time.Unix(1700000000, 0)
	mt := metav1.NewTime(at)
	s := &statsv1alpha1.Summary{
		Node: statsv1alpha1.NodeStats{NodeName: "n",
			CPU:    &statsv1alpha1.CPUStats{Time: mt, UsageCoreNanoSeconds: ptr.To[uint64](3e9)},
			Memory: &statsv1alpha1.MemoryStats{Time: mt, WorkingSetBytes: ptr.To[uint64](1 << 30)}},
		Pods: []statsv1alpha1.PodStats{{
			PodRef: statsv1alpha1.PodReference{Name: "p", Namespace: "ns", UID: "u"},
			Containers: []statsv1alpha1.ContainerStats{{Name: "c", StartTime: metav1.NewTime(at.Add(-time.Minute)),
				CPU:    &statsv1alpha1.CPUStats{Time: mt, UsageCoreNanoSeconds: ptr.To[uint64](1.5e9)},
				Memory: &statsv1alpha1.MemoryStats{Time: mt, WorkingSetBytes: ptr.To[uint64](64 << 20)}}},
			CPU:    &statsv1alpha1.CPUStats{Time: mt, UsageCoreNanoSeconds: ptr.To[uint64](1.5e9)},
			Memory: &statsv1alpha1.MemoryStats{Time: mt, WorkingSetBytes: ptr.To[uint64](64 << 20)},
		}},
	}
	h := api.HandlePodMetricsResource(func(context.Context) ([]*dto.MetricFamily, error) { return gatherResource(s) })
	rec := httptest.NewRecorder()
	h(rec, httptest.NewRequest("GET", "/metrics/resource", nil))
	body := rec.Body.String()
	for _, want := range []string{
		"node_cpu_usage_seconds_total 3 1700000000000\n",
		"node_memory_working_set_bytes 1.073741824e+09 1700000000000\n",
		`container_cpu_usage_seconds_total{container="c",namespace="ns",pod="p"} 1.5 1700000000000` + "\n",
		`container_memory_working_set_bytes{container="c",namespace="ns",pod="p"} 6.7108864e+07 1700000000000` + "\n",
		`container_start_time_seconds{container="c",namespace="ns",pod="p"} 1.69999994e+09` + "\n",
		`pod_cpu_usage_seconds_total{namespace="ns",pod="p"} 1.5 1700000000000` + "\n",
		`pod_memory_working_set_bytes{namespace="ns",pod="p"} 6.7108864e+07 1700000000000` + "\n",
		"# TYPE container_cpu_usage_seconds_total counter\n",
		"scrape_error 0\n", "resource_scrape_error 0\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics/resource lacks %q:\n%s", want, body)
		}
	}
}

// The host's CPU time from /proc/stat's busy fields, in nanoseconds.
func TestProcStatCPU(t *testing.T) {
	n, ok := procStatCPU([]byte("cpu  100 20 30 4000 50 6 7 8 0 0\ncpu0 1 2 3\nbtime 1700000000\n"))
	if !ok || n != (100+20+30+6+7+8)*uint64(10*time.Millisecond) {
		t.Fatalf("procStatCPU = %d %v", n, ok)
	}
	if b := bootTime([]byte("cpu 1\nbtime 1700000000\n")); !b.Equal(time.Unix(1700000000, 0)) {
		t.Fatalf("bootTime = %v", b)
	}
	h := readHostUsage()
	if !h.cpuOK || h.cpuNanos == 0 || !h.memOK || h.workingSet == 0 || h.workingSet > h.total {
		t.Fatalf("this host's usage: %+v", h)
	}
}
