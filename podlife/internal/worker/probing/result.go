package probing

import (
	"time"

	"github.com/podlife/podlife/probe"
)

// Result is the result of one probe of a container of a pod this Runtime manages, before
// thresholds are applied: one a probe period (see Runtime.SubscribeProbes). It is what the
// kubelet's prober_probe_total and prober_probe_duration_seconds count.
type Result struct {
	// Time is when the probe ended.
	Time time.Time
	// Pod, Namespace and PodUID name the pod; Container is the probed container's name.
	Pod, Namespace, PodUID, Container string
	// Kind is the probe's: Startup, Readiness or Liveness.
	Kind probe.Kind
	// Result is the prober's own: Success, Warning (counted as Success), Failure (a timeout
	// included) or Unknown; Unknown too for a period discarded because the prober returned an
	// error on every attempt (an Unhealthy event "... probe errored ..." tells the error).
	Result probe.Result
	// Duration is how long the probe took (its last attempt), on the real clock; 0 for a
	// discarded period.
	Duration time.Duration
}
