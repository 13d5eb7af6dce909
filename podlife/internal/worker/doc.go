// Package worker is the per-pod worker of a podlife Runtime: one [Worker] per pod it manages,
// which owns the pod's mutable state and everything that changes it.
//
// # What it owns
//
// A Worker's owner loop (owner.go) alone reads and writes the pod's state: phase, conditions,
// stop flags, every container's instances, state, readiness and restart count, the sandbox's
// IP, the pause, the ephemeral containers. That state is in unexported fields of Worker,
// [Container] and their parts, so the compiler keeps every other package off it: the Runtime
// (package podlife) reaches a pod only through Worker's exported methods, and reads come from
// the snapshot the loop last published. The package also owns what changes that state: the
// start sequence (pod_start.go), stop and removal (stop.go, remove_cutcreate.go), restarts and
// their back-off (restart.go), restarts of all the containers (restart_all.go), in-place
// resizes (resize.go), probes and lifecycle hooks (probes.go over package probing, container.go),
// supervision.json (supervision.go), termination messages, exec, attach and ephemeral
// containers, the active deadline and storage eviction, the pod's use of its sandbox
// (sandbox.go, pause.go, cgroup_pod.go) and of containerd's objects (instance.go, labels.go),
// and the pod's records on disk (record.go: pod.json and status.json). The I/O of one attempt
// of a container (create, exit wait, kill, exec, delete, logs, termination message) is
// podlife/internal/worker/attempt's, called with plain values.
// and the pod's records on disk (record.go, supervision.go: pod.json, status.json and
// supervision.json), which package record (podlife/internal/worker/record) writes from the
// values the worker takes on the loop; the rules of a running pod's updates from outside
// (deadline, conditions, readiness gates) are package podupdate's.
// containers, the active deadline and storage eviction, the pod's use of its sandbox and
// shims (sandbox.go: when they are made and undone; how is podlife/internal/worker/podsandbox's)
// and of containerd's objects (instance.go),
// and the pod's records on disk (record.go: pod.json and status.json).
//
// A Worker starts in one of three ways: [New] for a new pod (the Runtime then calls
// [Worker.Start]), [Restore] for a pod another process started, built from what an adopter
// observed ([Observed]: what podlife/internal/worker/observe read of the pod's directory and
// containerd objects) and bound to them, or [NewMember] for a
// warm pool member, made up to its processes ([Worker.Prewarm]) and started once Run claims it
// ([Worker.ClaimMember]); adoption itself (the decision to adopt, the record and lock checks)
// and the pools (their targets, refill and takes) stay in package podlife.
//
// # What it may use
//
// The Runtime gives each worker a [Host]: its settings, clock, tasks seam, back-off, shim
// groups, events' parent bus, and its answers about the connection to containerd and its own
// life. The worker never sees the Runtime. It must not import package podlife, adoption, the
// startup garbage collection (podlife/internal/gc), the control socket
// (podlife/internal/control) or podlife/daemon (TestPackageArrows checks it). The vocabulary
// (specs, status, events, reasons, errors) is podlife/internal/api's, used unqualified here (a
// dot import), so that the files read as they did in package podlife.
//
// # Goroutines
//
// Every goroutine a Worker starts for its pod is started with spawn (group.go): counted by name
// while it runs, and awaited. Remove returns once none is left (a removed Worker has none), the
// Runtime's close waits for them until its deadline ([Worker.AwaitAbandoned]), and the stop waits
// for the restarts and ephemeral containers' starts in flight. They are: the loop (runLoop,
// ended by Remove or by the Runtime's close); the start sequence (run) and, inside it, one
// preparation per container, the network attach and the watch of setup failures, all awaited by
// the start sequence (awaitStartSequence); the status writer (persistStatus, awaited through
// persisted); the deadline and storage watchers (ended by the stop or the Host's Closing); per
// started instance an exit watcher (watchExit, ended by the exit or by Abandon); restart
// back-offs and restarts of all the containers (restartAllContainers); a stop (stopWith, once per
// pod); the removal; the pause's watcher; lifecycle hooks' handlers (runHook). The hooks of
// package hook end with their context (an exec hook's process is killed through containerd,
// an HTTP hook's request has the context, a sleep returns), so they are awaited even once
// runHook gave up on them. The one exception is user Go code that ignores its context: a Go
// hook abandoned when it outlives its deadline, or a start policy abandoned by the stop (each
// with a Warning event) is released from the group, reported by [Worker.Goroutines] as abandoned
// until it returns, and awaited by nothing. The pod's state has no lock: it is the loop's (the
// restart of all the containers and the resize in progress included); the group's own mutex
// guards only which goroutines run.
//
// The probe workers of an instance and their kills (package probing) are awaited through their
// set (gProbes); a warm pool member's goroutines (its loop, network attach, status writer, the
// watch of each created process, and after a take the /etc rewrite, the record's sync, the
// relabel and the start) are the group's too. The sub-packages' own goroutines end before the
// call that started them returns (attempt's ask of the shim while containerd is away,
// podsandbox's shim start, startorder's watch of a dependency). Shared mutable state outside the
// loop is limited to what is not the pod's: the group's bookkeeping, package record's file
// writers (one write at a time per file), podsandbox.Shim's hand-over of the shim start between
// the pod's container preparations, and attempt's capped exec output buffer.
package worker
