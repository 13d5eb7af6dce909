package stats

import (
	"context"
	"math"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/virtual-kubelet/virtual-kubelet/node/api"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	statsv1alpha1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
	"k8s.io/utils/ptr"

	"github.com/podlife/podlife/podlife"
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
	h := api.HandlePodMetricsResource(func(context.Context) ([]*dto.MetricFamily, error) { return Resource(s) })
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

// A pod's usage in the Summary: each container's counters, start time and rate (from the
// previous request's sample; none for a restarted container's first sample), the pod's sums,
// eth0 as the default interface.
func TestUsageStats(t *testing.T) {
	var s Summarizer
	t0 := time.Unix(1700000000, 0)
	st := podlife.PodStatus{ContainerStatuses: []podlife.ContainerStatus{
		{Name: "a", State: podlife.ContainerState{Running: &podlife.StateRunning{StartedAt: t0.Add(-time.Hour)}}},
		{Name: "b", State: podlife.ContainerState{Running: &podlife.StateRunning{StartedAt: t0.Add(-time.Minute)}}},
	}}
	usage := func(at time.Time, attemptB int, cpuA, cpuB time.Duration) podlife.PodUsage {
		return podlife.PodUsage{Name: "p", Timestamp: at, Containers: []podlife.ContainerUsage{
			{Name: "a", Timestamp: at, CPU: cpuA, MemoryWorkingSet: 10 << 20, MemoryUsage: 12 << 20, MemoryRSS: 8 << 20, MemoryLimit: 64 << 20, Processes: 1},
			{Name: "b", Attempt: attemptB, Timestamp: at, CPU: cpuB, MemoryWorkingSet: 5 << 20, MemoryUsage: 6 << 20, MemoryLimit: math.MaxInt64, Processes: 2},
		}, Network: &podlife.NetworkUsage{Interfaces: []podlife.InterfaceUsage{{Name: "eth0", RxBytes: 100, TxBytes: 50}, {Name: "lo", RxBytes: 7}}}}
	}
	stats := func(u podlife.PodUsage) statsv1alpha1.PodStats {
		ps := statsv1alpha1.PodStats{PodRef: statsv1alpha1.PodReference{UID: "uid"}}
		s.usageStats(&ps, st, u)
		return ps
	}
	ps := stats(usage(t0, 0, time.Second, time.Second))
	if len(ps.Containers) != 2 || ps.Containers[0].CPU.UsageNanoCores != nil || ps.CPU.UsageNanoCores != nil {
		t.Fatalf("first sample: %+v, want two containers and no rates", ps)
	}
	a := ps.Containers[0]
	if !a.StartTime.Equal(&metav1.Time{Time: t0.Add(-time.Hour)}) || *a.CPU.UsageCoreNanoSeconds != 1e9 ||
		*a.Memory.WorkingSetBytes != 10<<20 || *a.Memory.AvailableBytes != 54<<20 || *a.Memory.RSSBytes != 8<<20 {
		t.Errorf("container a: %+v %+v", a, a.Memory)
	}
	if ps.Containers[1].Memory.AvailableBytes != nil {
		t.Errorf("container b, no limit: available %d", *ps.Containers[1].Memory.AvailableBytes)
	}
	if *ps.CPU.UsageCoreNanoSeconds != 2e9 || *ps.Memory.WorkingSetBytes != 15<<20 || *ps.ProcessStats.ProcessCount != 3 {
		t.Errorf("pod sums: CPU %+v memory %+v processes %+v", ps.CPU, ps.Memory, ps.ProcessStats)
	}
	if ps.Network == nil || ps.Network.Name != "eth0" || *ps.Network.RxBytes != 100 || len(ps.Network.Interfaces) != 1 {
		t.Errorf("network %+v", ps.Network)
	}
	// 2 s later: a used 1 s (half a core), b 2 s (a core).
	ps = stats(usage(t0.Add(2*time.Second), 0, 2*time.Second, 3*time.Second))
	if r := ps.Containers[0].CPU.UsageNanoCores; r == nil || *r != 5e8 {
		t.Errorf("a's rate %v, want 5e8", r)
	}
	if r := ps.CPU.UsageNanoCores; r == nil || *r != 15e8 {
		t.Errorf("pod's rate %v, want 15e8", r)
	}
	// b restarted: its counter starts again; no rate for it, nor for the pod.
	ps = stats(usage(t0.Add(4*time.Second), 1, 3*time.Second, 100*time.Millisecond))
	if ps.Containers[1].CPU.UsageNanoCores != nil || ps.CPU.UsageNanoCores != nil || ps.Containers[0].CPU.UsageNanoCores == nil {
		t.Errorf("after b's restart: b %+v pod %+v, want no rate for either (a's kept)", ps.Containers[1].CPU, ps.CPU)
	}
}
