// Package worker is the per-pod worker of a podlife Runtime: one [Worker] per pod it manages,
// which owns the pod's mutable state and the sequences that change it.
//
// # What it owns
//
// The pod's state (phase, conditions, stop flags, every container's instances, state, readiness
// and restart count, the IP, the pause's handles, the ephemeral containers) is in unexported
// fields of Worker, [Container] and their parts, read and written only on the pod's owner loop
// (owner.go): closures in, snapshots out, no I/O on the loop, no lock. Other packages reach a
// pod only through Worker's exported methods. The sequences that need that state stay here:
// start, stop and removal, restarts, resizes, probes' and hooks' effects, exec, attach,
// ephemeral containers, the deadline and storage eviction, warm members' take. A Worker comes
// from [New] (then [Worker.Start]), [Restore] for a pod another process started (from what its
// adopter observed, [Observed]), or [NewMember] for a warm pool member ([Worker.ClaimMember]).
// The decision to adopt is podlife/internal/adopt's, the pools' bookkeeping
// podlife/internal/warmpool's.
//
// # Sub-packages
//
// What needs none of the pod's state is in sub-packages that never import the worker: it calls
// them with values, functions, or tiny interfaces it implements on its loop. Each one's doc says
// what it owns.
//
//   - mechanisms: ownerloop (the loop), goroutines (the group that names and awaits every
//     goroutine the worker starts: group.go), host (what the Runtime gives a worker: [Host])
//   - start: podstart (the cold start's order), startorder, lifecycle (an instance's start and
//     hooks), imagepull, containerspec, volmount, creating (one attempt made: its mounts, OCI
//     options, containerd objects), attempt (one attempt's containerd I/O), podsandbox
//     (sandbox, pause, shims, labels), warmmember
//   - running: exitwatch, probing, restarting, resizing, ephemeral, podupdate, status (also a
//     container's status fields with their transitions, status.Container)
//   - end and records: teardown (kill sequence, cut creates, the stop's waits), podend (the
//     active deadline's wait, the local storage's watch), record (pod.json, status.json,
//     supervision.json), observe (what an adopter reads of a pod, and the plans of its binding
//     and resume)
//
// # What it may use
//
// It must not import package podlife, adoption (podlife/internal/adopt), the startup GC
// (podlife/internal/gc), the control socket (podlife/internal/control), the warm pool or
// podlife/daemon (TestPackageArrows). The vocabulary is podlife/internal/api's, dot-imported
// so that the files read as they did in package podlife.
//
// # Goroutines
//
// Every goroutine a Worker starts is spawned in its group under a name (group.go) and awaited:
// Remove returns once none is left but its caller's own; the Runtime's close waits for them
// until its deadline ([Worker.AwaitAbandoned]). User Go code that ignores its context (a Go hook
// past its deadline, a start policy after the stop) is abandoned with a Warning event and
// reported by [Worker.Goroutines] until it returns. Package hook's handlers end with their
// context and are awaited, as an instance's probe workers are (probing); the other
// sub-packages' goroutines end before the call that started them returns. The locks outside
// the loop guard what is not the pod's: the group's bookkeeping, record's file writers,
// podsandbox.Shim's hand-over, attempt's exec output buffer.
package worker
