package metrics

import "testing"

// Unhealthy events' messages give the kubelet's probe_type and result.
func TestProbeResult(t *testing.T) {
	for _, c := range []struct{ msg, kind, result string }{
		{"Liveness probe failed: HTTP probe failed with statuscode: 500", "Liveness", "failed"},
		{"Readiness probe failed: ", "Readiness", "failed"},
		{"Startup probe errored and resulted in unknown state: exec: not found", "Startup", "unknown"},
		{"Liveness probe warning: redirect", "", ""},
		{"Container app failed liveness probe, will be restarted", "", ""},
	} {
		kind, result, ok := probeResult(c.msg)
		if kind != c.kind || result != c.result || ok != (c.kind != "") {
			t.Errorf("probeResult(%q) = %q %q %v, want %q %q", c.msg, kind, result, ok, c.kind, c.result)
		}
	}
}
