// Package lifecycle is the start of a container instance and the running of its lifecycle
// hooks, for the worker: the start itself in its order (the loop's grant, the process, the
// Started event and exit watch, postStart recorded around its run, the probes: [Start]), the
// start gate that lets a stop wait for the starts in flight ([Gate], a value the pod's loop
// owns), a hook's run with its timeout, the wait for a handler whose context ended and its
// abandonment with a Warning event ([Run]), and the kubelet's message of a failed postStart
// ([PostStartMessage]). Its crash points (start.started, start.poststart,
// start.poststart-done) are the ones adoption's tests use.
//
// Plain values and callbacks in: the worker (package podlife/internal/worker) keeps the
// instance's state and passes what reads or changes it as functions that run on its loop
// ([Instance]), the hook's target, the goroutine to run a handler in (its own group's) with
// what to do with one abandoned, and the function that emits its events ([Hook]). Nothing here
// starts a goroutine of its own.
//
// It must not import the worker (arrows one way: worker -> lifecycle), package podlife,
// podlife/internal/ctrd, podlife/internal/tasks, podlife/internal/poddir, podlife/daemon or
// cni (TestPackageArrows checks it).
package lifecycle
