// Package sandboxns pins a pod's shared Linux namespaces (network, IPC and
// UTS) as bind-mounted files, so that they outlive the thread that created
// them without the help of a long-running "pause" process.
//
// Each namespace is pinned by bind-mounting /proc/thread-self/ns/<kind> onto
// an empty file dir/<kind>. Containers join a pinned namespace by passing that
// path to the OCI runtime; the namespace lives until [Remove] unmounts the
// file and the last process inside it exits.
//
// Mount propagation: the bind mounts are made in the caller's mount namespace
// and inherit the propagation type of the mount that holds dir. On a private
// mount (the default for / on this kind of host) they stay where they are. If
// dir lives on a shared mount, the pins, and later their MNT_DETACH unmounts,
// propagate to every peer mount namespace as well. That is harmless for
// podlife today, but a future hardening step is to make dir a private bind
// mount of itself (as other runtimes do) before pinning anything under it.
//
// It imports nothing of this repository and must not import package podlife, which builds on it.
package sandboxns
