// Package daemon runs a private containerd, either as a child of the
// calling process or as a detached daemon that belongs to its directory.
//
// [Start] runs containerd as a child, for tests and programs that own
// their daemon: it returns once the daemon serves its gRPC API, and
// [Daemon.Stop] ends it again. The child runs in a process group of its own
// and, on Linux, gets SIGTERM from the kernel if the process that started it
// dies without stopping it, so that a crashed test does not leave it behind.
//
// [Ensure] is what podlife uses when no system containerd answers: the first
// process that needs the daemon of a directory starts it detached (a session
// of its own, no parent-death signal, its output in Dir/containerd.log),
// under an flock on Dir/start.lock so that only one process starts it; every
// other process finds it by its socket, Dir/containerd.sock. No process stops
// it when it exits. [Lookup] reports the daemon of a directory and
// [Shutdown] stops it; [StopPrivate] stops the one of a podlife state dir
// ([PrivateDir]) once no pod is left there. If it dies, the next Ensure starts it again on the
// same root and state. [EnsurePrivate] is Ensure on a state dir's [PrivateDir], for programs
// that want a state dir's private containerd serving without a podlife.Runtime (a Runtime that
// should use it even when a system one answers sets podlife.Config.Embedded.IgnoreSystem).
//
// podlife supports containerd 2.x ([MinSupportedMajor]); [CheckVersion] tells an older version
// (1.6, 1.7: past their end of life), Ensure warns on its Logger when the containerd it starts
// is one, a podlife.Runtime warns on its Config.Logger when the system or configured containerd
// it connects to is one, and [WarnUnsupported] does the same for any address a program names.
//
// [Start] and [Ensure] write a minimal config.toml under [Config.Dir]. It is accepted by
// containerd 1.6 and 2.x alike: it is a version 2 file (2.x migrates it in
// memory) that disables the plugins a private daemon does not need,
// including CRI and the snapshotters that probe the host.
//
// Only the containerd process itself is managed. Shims
// (containerd-shim-runc-v2) are separate processes that outlive the daemon
// on purpose, so that running containers survive a restart; a caller that
// wants none left must delete its tasks before stopping the daemon.
//
// Of this repository it imports only internal/procutil and podlife/internal/layout. It must never
// import package podlife: package podlife and the commands import it.
package daemon
