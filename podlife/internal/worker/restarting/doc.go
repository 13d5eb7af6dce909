// Package restarting holds what decides and sequences a container's restarts, for the pod's
// worker (podlife/internal/worker): whether an exited container restarts ([ShouldRestart]: its
// kind, its restart policy and rules, the pod's policy, the exit code), its entry in the
// crash-loop back-off ([BackoffKey]) and the wait for the back-off to be over ([AwaitBackoff]),
// and the restart of all the pod's containers that a RestartAllContainers rule asks for: its
// state on the worker's loop ([All]) and its sequence ([RunAll]).
//
// # What it owns
//
// No pod state: the worker keeps the containers' states, instances and the [All] value on its
// loop. [RunAll] reaches them only through the [Pod] interface the worker implements, whose
// methods run closures on the loop or do the worker's I/O (kill, create, start) and return
// values; [All]'s methods are called by the worker in closures on its loop.
//
// It must not import the worker (arrows one way: worker -> restarting), package podlife,
// containerd's client, podlife/internal/ctrd, podlife/internal/tasks, podlife/internal/poddir,
// podlife/daemon or cni (TestPackageArrows checks it).
package restarting
