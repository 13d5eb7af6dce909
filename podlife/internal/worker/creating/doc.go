// Package creating makes one attempt of a container ([Make]): the OCI mounts of its
// volumeMounts (package volmount, their private mount points released once the task is made),
// its termination message mount, its OCI spec options (package containerspec) and its
// containerd container and task with its log (attempt.Create). The process is not started.
//
// It works on the values the pod's worker (podlife/internal/worker) gives it and keeps no
// state. It must not import the worker (arrows one way: worker -> creating), package podlife,
// adoption, the startup GC, the control socket or podlife/daemon (TestPackageArrows checks it).
package creating
