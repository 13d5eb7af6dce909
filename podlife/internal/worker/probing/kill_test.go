package probing

import (
	"testing"
	"time"

	"github.com/podlife/podlife/probe"
)

// A failed probe's kill: the kubelet's message, and the probe's grace period over the pod's.
func TestKillOf(t *testing.T) {
	own := 3 * time.Second
	msg, grace := KillOf("c", probe.Liveness, &probe.Spec{}, time.Minute, true)
	if msg != "Container c failed liveness probe, will be restarted" || grace != time.Minute {
		t.Errorf("liveness, restarts: %q %v", msg, grace)
	}
	msg, grace = KillOf("c", probe.Startup, &probe.Spec{TerminationGracePeriod: &own}, time.Minute, false)
	if msg != "Container c failed startup probe" || grace != own {
		t.Errorf("startup with its own grace, no restart: %q %v", msg, grace)
	}
}
