// Package tasks is the seam under the pod supervisor: everything a pod needs from containerd
// and from the host's kernel (leases, images, containers and their tasks, exec and attach
// I/O, cgroups, pinned namespaces, shim sockets) goes through the Runtime interface and the
// Container and Task handles it returns. The supervision rules (start order, hooks, restarts,
// the stop sequence, Close) live above it and never call containerd themselves, so they can
// be tested on a fake (podlife's tasks_fake_internal_test.go) without root. Adoption, the
// startup GC and the paths on pods with no live manager find containers, tasks and leases
// through it too, so whole adoptions run on the fake. The network is behind cni.Network, not
// here.
//
// Containerd is the implementation on containerd: its containerd calls go through package
// ctrd, the only user of containerd's client; the host's part (cgroups, pinned namespaces,
// shim sockets) is done here, and so are the crash points of the create, start and delete
// steps (run.lease, run.container-created, run.task-created, start.task-started,
// task.deleted, remove.container-deleted).
//
// It imports podlife/internal/api (credentials, ExecIO), ctrd, cgroupfs and the shared
// internal packages (sandboxns, failpoint); it must not import package podlife, the pod
// worker, the network (cni), the on-disk layout (poddir) or podlife/daemon.
package tasks
