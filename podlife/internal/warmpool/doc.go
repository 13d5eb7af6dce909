// Package warmpool is podlife's warm pool (Runtime.Prewarm): which pod specs match (Key), which
// cannot be pooled and why (Poolable), the member record on disk (Member), the pools' bookkeeping
// (Pools: a target per key, the members ready, a bound on the members being made), and their
// management (Manager): making members with the pod worker's own sandbox and create sequence,
// the refill, the take by Run (claiming a member as the Runtime's pod), its removal and Close.
// The Runtime gives the Manager plain values and functions (Deps: the worker Host, registering
// a taken pod, giving back a reserved name, its adoption locks, its logger). It may import the
// pod worker (podlife/internal/worker), which must not import it; it must not import package
// podlife, the startup garbage collection, adoption, the control socket or the daemon.
package warmpool
