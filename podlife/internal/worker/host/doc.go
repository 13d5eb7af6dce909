// Package host is what a podlife Runtime gives each of its pod workers ([Host]): the settings
// they read ([Config]), the services they share (tasks seam, clock, back-off, shim groups, the
// events' parent bus) and the Runtime's answers about containerd and its own life, as plain
// values and functions. It holds no worker's state and runs nothing; the worker
// (podlife/internal/worker) names it worker.Host.
//
// It must not import the worker (arrows one way: worker -> host), package podlife, adoption,
// the startup GC, the control socket, the warm pool or podlife/daemon (TestPackageArrows).
package host
