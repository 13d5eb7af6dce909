// Package probes holds podlife-bench's probe measurements: what probes cost (many pods with an
// exec and an httpGet probe each, CPU over four windows; -only probes) and how long a start
// gated on a readiness probe (DependsOn ... Ready) waits (-only gated). Switched, the prober
// wrapper that counts runs and can be turned off, also serves the runtimeclass measurement.
//
// It must not import the command (internal/cmd/podlife-bench) nor the other internal/bench
// packages but measure (TestPackageArrows in podlife/internal/layout).
package probes
