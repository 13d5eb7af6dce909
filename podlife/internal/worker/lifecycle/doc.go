// Package lifecycle runs a container's lifecycle hooks (postStart, preStop) for the worker:
// the hook's timeout, the wait for a handler whose context ended and its abandonment with a
// Warning event ([Run]), and the kubelet's message of a failed postStart ([PostStartMessage]).
// Plain values and callbacks in: the worker (package podlife/internal/worker) passes the
// hook's target, the goroutine to run the handler in (its own group's) and what to do with
// one abandoned, and the function that emits its events.
//
// It must not import the worker (arrows one way: worker -> lifecycle), package podlife,
// podlife/internal/ctrd, podlife/internal/tasks, podlife/internal/poddir, podlife/daemon or
// cni (TestPackageArrows checks it).
package lifecycle
