// Package daemon runs a private containerd as a child process.
//
// It is what podlife uses when no system containerd answers, and what tests
// use to get a containerd of their own. [Start] writes a minimal
// config.toml under [Config.Dir], starts the binary and returns once the
// daemon serves its gRPC API; [Daemon.Stop] ends it again.
//
// The generated configuration is accepted by containerd 1.6 and 2.x
// alike: it is a version 2 file (2.x migrates it in memory) that disables
// the plugins a private daemon does not need, including CRI and the
// snapshotters that probe the host.
//
// The daemon runs in a process group of its own and, on Linux, gets SIGTERM
// from the kernel if the process that started it dies without stopping it,
// so that a crashed test or program does not leave it behind.
//
// Only the containerd process itself is managed. Shims
// (containerd-shim-runc-v2) are separate processes that outlive the daemon
// on purpose, so that running containers survive a restart; a caller that
// wants none left must delete its tasks before stopping the daemon.
package daemon
