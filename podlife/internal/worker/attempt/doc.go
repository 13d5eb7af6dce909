// Package attempt does the I/O of one attempt of one container of a pod (what the worker calls
// an instance): its containerd container and task with their output (the log file, the logger
// program or the attach FIFOs), the wait for its exit across losses of the connection to
// containerd (with the shim asked directly meanwhile), the stop signal and SIGKILL once the
// grace period is over, exec and its captured output, the copy of an interactive container's
// output, the deletion of the task and the container, the termination message and the log's
// tail.
//
// # What it owns
//
// Nothing that lives longer than a call: the pod worker (podlife/internal/worker) keeps each
// instance's state on its loop and makes the decisions (when to create, start or kill, what an
// exit means, events, restarts); it calls this package with plain values (IDs, paths, the
// containerd handles of the tasks seam) and [Conn], the Host's answers about the connection to
// containerd. Where the worker's state must change (a task deleted, a log opened), a function
// returns the new values or calls back, and the worker applies them on its loop. The on-disk
// names (log files, attach FIFOs, termination message files) and the crash points
// ("stop.signalled") are this package's.
//
// # Goroutines
//
// Every call runs on its caller's goroutine, except what it hands on: AwaitExit, while
// containerd is away, asks the shim in a goroutine whose context it cancels before it returns
// (the goroutine then ends, its answer going to a buffered channel nobody reads); the copy of
// an interactive attempt's output (tasks.TeeAttach) ends with the process's output or the
// Runtime's close.
//
// # What it may use
//
// containerd only through the tasks seam (podlife/internal/tasks) and ctrd's shim wait, the
// vocabulary of podlife/internal/api, and the log packages. It must not import the worker (the
// arrow points from the worker to here), package podlife, adoption, the startup GC, the control
// socket or podlife/daemon (TestPackageArrows checks it).
package attempt
