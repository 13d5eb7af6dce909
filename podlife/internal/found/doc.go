// Package found finds pods on disk, as any process of a state dir sees them: the pods'
// directories (Names), a pod's record read with a missing one reported as api.ErrNotFound
// (ReadRecord), and the status of a pod whose manager is gone, corrected with what
// containerd knows now (Reconcile: a container whose task ended is terminated, nothing is
// ready). Which files a container's logs are is package logs' (logs.Files).
//
// It knows the record's file name (package layout), not the record's content: the caller
// passes the value to fill. It reaches containerd only through the TaskState function it is
// given, and computes no phase itself (the caller's phase rules are passed in). It must not
// import package podlife, the pod worker, podlife/internal/tasks, podlife/daemon or cni.
package found
