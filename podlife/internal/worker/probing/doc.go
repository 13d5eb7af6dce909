// Package probing runs one container instance's probes for the pod's worker
// (podlife/internal/worker), on top of package probe: the startup probe first, then readiness and
// liveness once the instance is started; the Unhealthy and ProbeWarning events; the results
// published before thresholds ([Result], see Runtime.SubscribeProbes).
//
// It owns the probe workers of an instance ([Set]) and nothing of the pod: what a probe changes
// (the container started or ready, supervision.json, the kill of an instance whose liveness or
// startup probe failed) it asks of the worker through the functions of [Config], which the
// worker runs on its loop. It must not import the worker, nor containerd's client, the state
// directory or CNI (TestPackageArrows checks it).
package probing
