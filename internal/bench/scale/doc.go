// Package scale holds podlife-bench's scale measurements.
//
// The scale measurements (issue 19 items 4 and 6) are off by default (`-only probescale,manypods`):
//
//   - probescale: -scale-probe-pods pods (100), one busybox httpd container each with a
//     readiness probe every second, started -scale-parallel at a time; then three windows of
//     -probe-window each: every probe an httpGet, every probe a tcpSocket, and none (the
//     workers tick, the prober answers at once). The managing process's CPU in each window
//     (getrusage) is printed as a share of one core; -scale-cpuprofile PREFIX writes a CPU
//     profile of each window to PREFIX-<window>.pprof.
//   - manypods: -many-pods pods (200), one `sleep` container each, started -scale-parallel at a
//     time, then removed the same way: how long, and how many failed.
//
// It must not import the command (internal/cmd/podlife-bench) nor the other internal/bench
// packages but measure: each measurement stands alone, and the command composes them
// (TestPackageArrows in podlife/internal/layout).
package scale
