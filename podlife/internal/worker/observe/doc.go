// Package observe reads what exists of a pod that another process started, for its adopter:
// the pod's directory (status.json, supervision.json, sandbox.json, the pinned namespaces)
// and, through the tasks seam (podlife/internal/tasks), its containerd containers by label
// with their tasks' states, its pause, and its containers' local images with their configs
// (Observe). It returns plain values (Pod, Instance, Image); the only thing it changes is
// reading away the output FIFOs of the previous manager's execs in flight, which would hold
// back their containers' exits. It also holds the pure per-container decision of an adoption (Decide):
// follow, record an exit, finish a cut restart, or report an interrupted start; the plan of
// the binding (Bind: the values the worker assigns, the instances it deletes, the exits it
// follows, the stop signal recorded) and of what the resume does with each container's
// current instance (ResumeOf).
//
// The adopter (podlife/internal/adopt) calls Observe and hands the result to
// worker.Restore, which assigns Bind's plan to the worker's state before the pod's loop starts. It must
// not import the worker (podlife/internal/worker), the startup GC, the control socket or the
// daemon (TestPackageArrows checks it).
package observe
