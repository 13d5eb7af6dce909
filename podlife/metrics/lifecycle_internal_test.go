package metrics

import (
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/probe"
)

// Probe results give the kubelet's probe_type and result labels (a Warning is a success); a
// result with a duration is observed in the duration histogram, a discarded period's is not.
func TestProbeResultLabels(t *testing.T) {
	c := &Collector{life: newLifecycle()}
	res := func(k probe.Kind, r probe.Result, d time.Duration) podlife.ProbeResult {
		return podlife.ProbeResult{Pod: "p", Namespace: "ns", PodUID: "u", Container: "c", Kind: k, Result: r, Duration: d}
	}
	for _, r := range []podlife.ProbeResult{
		res(probe.Readiness, probe.Success, time.Millisecond),
		res(probe.Readiness, probe.Warning, time.Millisecond),
		res(probe.Liveness, probe.Failure, time.Millisecond),
		res(probe.Startup, probe.Unknown, time.Millisecond),
		res(probe.Startup, probe.Unknown, 0), // errored: counted, not timed
	} {
		c.probeResult(r)
	}
	want := map[[6]string]uint64{
		{"Readiness", "successful", "c", "p", "ns", "u"}: 2,
		{"Liveness", "failed", "c", "p", "ns", "u"}:      1,
		{"Startup", "unknown", "c", "p", "ns", "u"}:      2,
	}
	if len(c.life.probes) != len(want) {
		t.Errorf("counts %v, want %v", c.life.probes, want)
	}
	for k, n := range want {
		if c.life.probes[k] != n {
			t.Errorf("%v = %d, want %d", k, c.life.probes[k], n)
		}
	}
	for kind, n := range map[string]uint64{"Readiness": 2, "Liveness": 1, "Startup": 1} {
		var m dto.Metric
		if err := c.life.probeTime.WithLabelValues(kind, "c", "p", "ns").(interface{ Write(*dto.Metric) error }).Write(&m); err != nil {
			t.Fatal(err)
		}
		if got := m.GetHistogram().GetSampleCount(); got != n {
			t.Errorf("%s durations observed: %d, want %d", kind, got, n)
		}
	}
}
