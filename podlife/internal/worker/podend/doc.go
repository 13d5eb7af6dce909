// Package podend holds how a running pod comes to its end on its own, apart from a stop asked
// for (package teardown) or its containers' completion (package status): the wait for its
// active deadline, followed as it is updated (WaitDeadline), and the watch of its local storage
// against its limits (Storage.Watch: measured from plain values, decided by
// podlife/internal/eviction). The worker (podlife/internal/worker) runs them in goroutines of
// its own and fails and stops the pod when they return true; the pod's state stays the
// worker's.
//
// # What it may use
//
// The clock, the eviction rules and the disk usage of podlife/internal/usage; containerd only
// through the function it is given. It must not import the pod worker (the arrow points from
// the worker to here), package podlife, adoption, the startup GC, the control socket,
// podlife/internal/poddir, podlife/internal/eventbus, podlife/daemon or cni (TestPackageArrows
// checks it).
package podend
