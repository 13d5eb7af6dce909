// Package podsandbox is how a pod's sandbox and shims are made and undone, for the pod worker
// (podlife/internal/worker), which decides when.
//
// # What it owns
//
//   - The sandbox ([Sandbox]): the pod's directory (made by [MakeDir]) and its layout (etc,
//     volumes, fifo, ns), the pinned network, IPC and UTS namespaces, the /etc files, the
//     volumes' directories and tmpfs mounts, the CNI attach and detach with sandbox.json (the
//     intent and result an adopter or the startup GC undoes), the pod cgroup, and the pod's
//     containerd lease.
//   - The pause of a pod with ShareProcessNamespace (pause.go): its spec, its create and
//     start, the pin of its PID namespace, the following of its task across containerd's
//     restarts, its deletion.
//   - The labels put on the pod's containerd containers ([PodLabels]) and their keys, a
//     format that pods started by older podlife versions are found by.
//   - The shim choice ([Shim]): the runc shim group of the pod's containers, its socket, the
//     wait of the other NewTasks for the first one's shim and its hand-over, and the removal
//     of a stale socket.
//
// # What it does not own
//
// The pod's state stays the worker's, in its loop: whether the network is attached and the
// pod's IP (the worker gives a [NetState] that reports them to its loop), the pause's
// containerd handles (the pause's sequences read and record them through the [PauseState] the
// worker gives, which runs them on its loop), when each step runs and what a failure does to
// the pod. The sandbox's paths and hostname are set
// when it is made (Create, Restore, Rebase), before anything reads them; the Shim's lock
// guards only its own hand-over.
//
// # What it may use
//
// It imports podlife/internal/api, sandbox, tasks, ctrd (exit statuses), cgroupfs, hostmount,
// layout, poddir, shimgroup, ocibuild and the cni package. It must not import the worker
// (arrows point worker -> podsandbox), package podlife, adoption, the startup GC
// (podlife/internal/gc), the control socket (podlife/internal/control) or podlife/daemon
// (TestPackageArrows checks it).
package podsandbox
