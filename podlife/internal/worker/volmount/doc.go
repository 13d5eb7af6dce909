// Package volmount mounts a pod's volumes into a container safely and prepares the volumes
// podlife makes: the OCI mounts of a container's volumeMounts ([Mounts]), with a subPath or a
// hostPath resolved without following a link out of its volume, checked and bind-mounted onto
// a private mount point that runc mounts from ([Private], released once the task is created),
// the volume lookups of a pod spec ([HostPath], [ReadOnly]) and the fsGroup ownership of a
// volume podlife made ([ApplyFSGroup]). It works on host paths and the pod's spec only; the
// worker (package podlife/internal/worker) says where the pod's volumes and private mount
// points are.
//
// It must not import the worker (arrows one way: worker -> volmount), package podlife,
// containerd's client or podlife/internal/ctrd, podlife/internal/tasks, podlife/internal/poddir
// or podlife/daemon (TestPackageArrows checks it).
package volmount
