// Package worker is the per-pod worker of a podlife Runtime: one [Worker] per pod it manages,
// which owns the pod's mutable state and the sequences that change it.
//
// # What it owns
//
// The pod's state (phase, conditions, stop flags, every container's instances, state, readiness
// and restart count, the IP, the pause's handles, the ephemeral containers) is in unexported
// fields of Worker, [Container] and their parts, read and written only on the pod's owner loop
// (owner.go): closures in, snapshots out, no I/O on the loop. Other packages reach a pod only
// through Worker's exported methods, and read the loop's last snapshot. The worker keeps what
// needs that state: the start, stop and removal, restarts and their back-off, resizes, probes'
// and hooks' effects, exec, attach and ephemeral containers, the deadline and storage eviction,
// warm pool members, and when the sandbox is made and undone. A Worker comes from [New] (then
// [Worker.Start]), [Restore] for a pod another process started (bound to what its adopter
// observed, [Observed]), or [NewMember] for a warm pool member ([Worker.ClaimMember]). The
// decision to adopt stays in package podlife, the pools' bookkeeping in podlife/internal/warmpool.
//
// # Sub-packages
//
// Mechanisms, pure decisions and I/O on plain values are in sub-packages that never import the
// worker: it calls them with values, functions, or tiny interfaces it implements on its loop.
//
//   - ownerloop: the owner loop (closures in, snapshots published, the re-entry check)
//   - goroutines: the group that names, counts and awaits the worker's goroutines
//   - attempt: the I/O of one attempt of a container (create, exit, kill, exec, delete, logs)
//   - podsandbox: how the sandbox, pause and shims are made and undone; the containerd labels
//   - containerspec: a container's OCI spec options from the pod's immutable data
//   - volmount: volume mounts, subPath and hostPath resolution, fsGroup
//   - imagepull: the pull policy and back-off, image volumes' view keys
//   - probing: an instance's probe workers
//   - startorder: the DependencyOrder start policy
//   - status: phase, conditions, readiness and completion from the containers' statuses
//   - podupdate: the API server's rules for a running pod's updates
//   - record: pod.json, status.json and supervision.json
//   - observe: what an adopter reads of a pod another process started, and its decisions
//
// # What it may use
//
// The Runtime gives each worker a [Host]: settings, clock, the tasks seam, back-off, shim
// groups, the events' parent bus, and answers about containerd and the Runtime's own life; the
// worker never sees the Runtime. It must not import package podlife, adoption, the startup GC
// (podlife/internal/gc), the control socket (podlife/internal/control), the warm pool
// (podlife/internal/warmpool) or podlife/daemon (TestPackageArrows). The vocabulary is
// podlife/internal/api's, dot-imported so that the files read as they did in package podlife.
//
// # Goroutines
//
// Every goroutine a Worker starts is spawned in its group (group.go) under a name, and awaited:
// Remove returns once none is left but its caller's own, the Runtime's close waits for them
// until its deadline ([Worker.AwaitAbandoned]), the stop waits for the restarts and ephemeral
// starts in flight, the start sequence for its preparations, network attach and setup watch.
// User Go code that ignores its context (a Go hook past its deadline, a start policy after the
// stop) is abandoned with a Warning event: released from the group, reported by
// [Worker.Goroutines] until it returns. The hooks of package hook end with their context and
// are awaited; so are an instance's probe workers, through their set (probing). The other
// sub-packages' goroutines end before the call that started them returns.
// No lock guards the pod's state; the locks outside the loop guard what is not the pod's: the
// group's bookkeeping, record's file writers, podsandbox.Shim's hand-over, attempt's exec
// output buffer.
package worker
