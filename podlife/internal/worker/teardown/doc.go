// Package teardown holds the parts of a pod's stop and removal that need none of the pod
// worker's state: the kubelet's kill sequence of one container instance (KillInstance: the
// Killing event, the preStop hook within the grace period, the stop signal, SIGKILL) over a
// Target, the functions the worker gives it, the wait of a stop for the start sequence it
// cancelled (AwaitStart, over channels), the removal's end of the shims of task creates cut by
// a manager's death (CutCreates), from plain values, and the mechanisms of the stop's and the
// removal's sequences: the wait of every caller for the one end that runs (AwaitEnd), the
// steps run at once on every container (Each), the containers a sidecar outlives (Outlived).
//
// # What it owns
//
// Nothing that outlives a call: the worker (podlife/internal/worker) keeps the pod's state and
// decides when to stop and what to remove; it calls this package with plain values and reaches
// its own state through Target, whose functions read on the pod's loop or run the worker's
// sequences (events, hooks). The crash point "stop.prestop" is this package's.
//
// # What it may use
//
// containerd only through the tasks seam (podlife/internal/tasks), ctrd's shim processes and
// package attempt's signals. It must not import the worker (the arrow points from the worker to
// here), package podlife, adoption, the startup GC, the control socket or podlife/daemon
// (TestPackageArrows checks it).
package teardown
