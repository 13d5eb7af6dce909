// Package exitwatch is the sequence of a container instance's exit watcher: the wait for the
// exit (across losses of the connection to containerd), the reads it needs before the exit is
// recorded (the cgroup's OOM kill, the termination message), the record, the Exited event,
// then what follows the exit. The worker (podlife/internal/worker) gives it each step through a
// function of Instance that reads and writes the instance's state on the pod's loop; the
// terminated state of an exit is computed here from plain values (Exit.Terminated).
//
// # What it owns
//
// Nothing that outlives a call: Watch runs on the exit watcher's goroutine, which the worker
// starts and awaits. It must not import the worker (the arrow points from the worker to here),
// package podlife, adoption, the startup GC, the control socket or podlife/daemon
// (TestPackageArrows checks it).
package exitwatch
