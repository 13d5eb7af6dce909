// Package ephemeral holds what an ephemeral container (`kubectl debug`) needs beyond a
// container's start, for the pod's worker (podlife/internal/worker): its validation against the
// running pod as the API server's validateEphemeralContainers and the Runtime's admission do it
// ([Validate], over a [Pod] of values the worker reads on its loop), and the PID namespace of
// its target container, pinned while its task is created ([PinTarget], [Unpin]) and joined by
// its spec ([JoinPID]).
//
// # What it owns
//
// No pod state: the worker keeps the ephemeral containers, adds one on its loop once
// [Validate] passed, finds the target's running process and keeps the pin's directory. It
// reaches the host's namespaces only through the tasks seam (podlife/internal/tasks). The pin's
// on-disk place is the worker's (the pod directory's ns/target-<id>).
//
// It must not import the worker (arrows one way: worker -> ephemeral), package podlife,
// adoption, the startup GC, the control socket, podlife/internal/poddir, podlife/daemon or cni
// (TestPackageArrows checks it).
package ephemeral
