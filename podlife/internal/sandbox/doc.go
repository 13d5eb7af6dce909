// Package sandbox holds the parts of a pod's sandbox that need no pod worker: the /etc files
// the containers bind-mount (hostname, resolv.conf, hosts), files volumes and the hostPath
// checks, the pod cgroup (its path and limits), and the sandbox record (sandbox.json) that
// lets an adopter or the startup GC undo a crashed process's network attachment. The
// stateful sandbox (pinned namespaces, the network attachment, the pause container) is
// podlife/internal/worker/podsandbox's, and calls these.
//
// It imports podlife/internal/api, cgroupfs and hostmount; it must not import package podlife,
// containerd (ctrd, tasks), the network (cni) or podlife/daemon.
package sandbox
