package podlife_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/metrics"
)

// checkCollector gathers the metrics of rt's pods and checks those of the pod name against a
// sample taken just before: counters at least what it showed, its working set about the same,
// the status series there.
func checkCollector(t *testing.T, rt *podlife.Runtime, name string, before podlife.PodUsage) {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(metrics.NewCollector(rt))
	families, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	value := func(family string, labels map[string]string) (float64, bool) {
		for _, f := range families {
			if f.GetName() != family {
				continue
			}
		next:
			for _, m := range f.GetMetric() {
				have := map[string]string{}
				for _, l := range m.GetLabel() {
					have[l.GetName()] = l.GetValue()
				}
				for k, v := range labels {
					if have[k] != v {
						continue next
					}
				}
				return metricValue(m), true
			}
		}
		return 0, false
	}
	burn, _ := before.Container("burn")
	if v, ok := value("container_cpu_usage_seconds_total", map[string]string{"pod": name, "container": "burn"}); !ok || v < burn.CPU.Seconds() {
		t.Errorf("container_cpu_usage_seconds_total of burn: %v (found %v), want at least %v", v, ok, burn.CPU.Seconds())
	}
	mem, _ := before.Container("mem")
	if v, ok := value("container_memory_working_set_bytes", map[string]string{"pod": name, "container": "mem"}); !ok || v < float64(mem.MemoryWorkingSet)*0.9 {
		t.Errorf("container_memory_working_set_bytes of mem: %v (found %v), want about %d", v, ok, mem.MemoryWorkingSet)
	}
	if v, ok := value("container_network_receive_bytes_total", map[string]string{"pod": name, "interface": "eth0"}); !ok || v < float64(before.Network.RxBytes) {
		t.Errorf("container_network_receive_bytes_total: %v (found %v), want at least %d", v, ok, before.Network.RxBytes)
	}
	if v, ok := value("podlife_pod_volume_bytes", map[string]string{"pod": name}); !ok || v < 8<<20 {
		t.Errorf("podlife_pod_volume_bytes: %v (found %v), want the 8 MiB written", v, ok)
	}
	for _, s := range []struct {
		family string
		labels map[string]string
		want   float64
	}{
		{"container_oom_events_total", map[string]string{"pod": name, "container": "mem"}, 0},
		{"kube_pod_container_status_restarts_total", map[string]string{"pod": name, "container": "burn"}, 0},
		{"kube_pod_container_status_running", map[string]string{"pod": name, "container": "burn"}, 1},
		{"kube_pod_status_phase", map[string]string{"pod": name, "phase": "Running"}, 1},
		{"kube_pod_status_phase", map[string]string{"pod": name, "phase": "Failed"}, 0},
		{"podlife_pod_managed", map[string]string{"pod": name}, 1},
		{"podlife_scrape_errors_total", nil, 0},
	} {
		if v, ok := value(s.family, s.labels); !ok || v != s.want {
			t.Errorf("%s%v: %v (found %v), want %v", s.family, s.labels, v, ok, s.want)
		}
	}
}

func metricValue(m *dto.Metric) float64 {
	switch {
	case m.GetCounter() != nil:
		return m.GetCounter().GetValue()
	case m.GetGauge() != nil:
		return m.GetGauge().GetValue()
	}
	return 0
}
