// Package measure is what podlife-bench's measurements share: the run's environment (Env: its
// private containerd, bridge network, state directory and container logger; Runtime opens a
// podlife Runtime on one namespace of it), the bench pod and image, the timing statistics (Stat,
// Summarize) and their table, CPU readings (the machine's, this process's, a process tree's) and
// memory readings (RSS, the PSS of shims and container loggers).
//
// It must not import the command (internal/cmd/podlife-bench) nor any other internal/bench
// package: they all build on it (TestPackageArrows in podlife/internal/layout).
package measure
