// Package remote acts on a pod of the state dir without its worker, whichever process manages
// it, or none: a request to its manager through the manager's control socket (SetCondition,
// SetDeadline, AddEphemeral), exec and attach straight in its containers' tasks, which any
// process on the host can reach (Pods.Exec, Pods.Attach); and the serving side, a control
// request done on this Runtime's worker (Do). Stopping and removing a pod of another process
// is adoption's (podlife/internal/adopt), since a pod without a manager is adopted for it.
//
// It gets plain values (a state dir, a namespace, the Runtime's containerd seam) and the
// worker a request names; it never sees the Runtime. It may import the pod worker and its
// sub-packages, found and the control socket's client; the worker must not import it. It must
// not import package podlife, adoption, the startup garbage collection, the warm pool or
// podlife/daemon (TestPackageArrows checks it).
package remote
