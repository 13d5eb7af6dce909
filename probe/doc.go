// Package probe runs container probes (startup, readiness, liveness) with the
// semantics of the Kubernetes kubelet.
//
// A [Prober] checks a container once and returns a [Result] with a message.
// The package offers the kubelet's probe mechanisms, plus Go functions:
//
//   - [Exec] runs a command in the container: exit code 0 is Success, any other
//     code Failure, a timeout Failure ("command ... timed out").
//   - [HTTPGet] sends a GET request from the host to the pod IP (or a given
//     host): 200 <= status < 400 is Success; a redirect to another host is not
//     followed and gives Warning, which counts as Success.
//   - [TCPSocket] connects to a port: a connection is Success.
//   - [ProberFunc] adapts a Go function.
//
// The kubelet's grpc probe (grpc.health.v1) is not offered yet.
//
// # Timeouts
//
// Probers are bounded by their context only. The caller gives each probe a
// context whose deadline is the probe's timeout; [Spec.Run] does that. A probe
// whose deadline passes reports Failure; one whose context is cancelled
// otherwise reports a prober error, since its result means nothing.
//
// # Specs
//
// [Spec] holds a prober with the kubelet's timing fields. [Spec.WithDefaults]
// fills in the kubelet's defaults and [Spec.Validate] checks a spec for one
// [Kind] of probe.
//
// # Workers
//
// A [Worker] runs one probe of one container on its period, as the kubelet's
// probe worker does: initial delay, thresholds, retries of prober errors, the
// initial results (readiness Failure, liveness Success, startup Unknown), and
// holding after a liveness failure or a final startup result. Its callbacks
// report every run and every change of the thresholded result. An optional
// FastPeriod probes faster until the first success.
//
// Probers take a [hook.Target], which gives the pod IP and the [hook.Execer]
// that runs commands in the container.
//
// Imports: of this repository it imports hook, internal/clock and internal/httpget. It must never
// import package podlife (or its sub-packages) or cni: the arrow points from podlife to probe.
package probe
