// Package observe reads what exists of a pod that another process started, for its adopter:
// the pod's directory (status.json, supervision.json, sandbox.json, the pinned namespaces)
// and, through the tasks seam (podlife/internal/tasks), its containerd containers by label
// with their tasks' states, its pause, and its containers' local images with their configs
// (Observe). It returns plain values (Pod, Instance, Image); the only thing it changes is
// reading away the output FIFOs of the previous manager's execs in flight, which would hold
// back their containers' exits. It also holds the pure per-container decision of an adoption (Decide):
// follow, record an exit, finish a cut restart, or report an interrupted start.
//
// The adopter (podlife/internal/adopt) calls Observe and hands the result to
// worker.Restore, which binds it to the worker's state before the pod's loop starts. It must
// not import the worker (podlife/internal/worker), the startup GC, the control socket or the
// daemon (TestPackageArrows checks it).
package observe
