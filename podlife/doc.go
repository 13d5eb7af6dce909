// Package podlife runs Kubernetes-style pods on a plain Linux host, as a library: it drives
// containerd directly and wires pods with CNI, with no kubelet, API server or etcd.
//
// # Who owns what
//
// A pod's containers belong to containerd and their shims; the [Runtime] that ran the pod (its
// manager) supervises it. Inside the Runtime, each pod has one owner: an event loop, a goroutine
// per pod that alone reads and writes the pod's mutable state (phase, conditions, stop flags,
// every container's instances, state, readiness and restart count, the sandbox's IP, the pause,
// the ephemeral containers). Everything else (the start sequence, exit watchers, probe
// workers, hooks, restart back-offs, timers, API calls) hands the loop short closures and waits
// for them to have run; none does I/O or calls user code, so no hook, probe or containerd call
// ever holds the pod. After each change the loop recomputes the phase and conditions and
// publishes an immutable snapshot: [Pod.Status], [Container.Status], [Container.ID] and
// [Pod.WaitFor] read it without waiting for the loop. [Pod] and [Container] are handles.
//
// The loop ends when the pod is removed or the Runtime closed; a closure handed to it later
// is not run (the call that needed it fails with [ErrClosed] or does nothing), and the last
// snapshot stays readable. A closure must never hand the loop another closure (it would wait
// for itself; the package's tests panic). The locks left guard no pod state: the Runtime's pod table,
// the event rings, the connection watch and one-shot closes (sync.Once); each Task.Start is
// granted and counted by the pod's loop, and a stop waits for the count to be back to zero
// (the start gate, package worker's awaitStarts); results written once
// (a start's, a stop's, a removal's error) are published by closing a channel.
//
// Hooks run in goroutines of their own and are abandoned, with a Warning event, when they
// outlive their deadline: no hook holds a stop beyond its grace period. [Runtime.Close] ends
// every goroutine the Runtime started, the pods' loops included, and leaves the pods running
// for another Runtime on the same state dir ([Runtime.LookupPod], and
// [Runtime.Pod]'s handle: [Pod.Stop], [Pod.Remove]).
//
// # Runtime, pods and containers
//
// [New] connects to containerd (the system socket, or a private containerd it starts when none
// answers or when [EmbeddedConfig].IgnoreSystem skips the system socket) and prepares a CNI bridge. [Runtime.Run] turns a [PodSpec] into running containers
// and returns a [Pod]; [Pod.Status] is a snapshot shaped like Kubernetes' PodStatus, events
// ([Pod.Subscribe], [Runtime.Subscribe]) carry the kubelet's reasons, [Pod.Stop] stops the pod
// gracefully and [Pod.Remove] deletes everything it had. [Runtime.Pod] gives the same handle on
// any pod of the state directory, whichever process manages it, or none: its Stop, Remove, Exec,
// Attach, Logs, SetCondition, SetActiveDeadline, AddEphemeralContainer, Usage and DiskUsage work the same in every
// case (see [Pod]).
//
// A context passed to a method cancels that call, never the pod: a pod lives until Stop or Remove.
//
// # Start order
//
// A start policy (package podlife/startpolicy) decides when each container's process starts.
// The default, [startpolicy.Sequential], is the kubelet's: containers start one by one in spec
// order and a container's postStart hook must return before the next container starts (the
// "sidecar first" trick relies on it). [startpolicy.Parallel] starts them at once. Whatever the
// policy, the work that does not change the order (image checks, snapshots, container and task
// creation, the network) runs ahead in parallel, so a pod starts faster than the
// straightforward sequence would. [Runtime.Prewarm] goes further: it keeps pods of a spec made
// that far ahead of time (a warm pool), and [Runtime.Run] of a matching spec only starts their
// processes, in the same order (docs/warm-pool.md).
//
// # Sandbox
//
// A pod's network, IPC and UTS namespaces are created once and pinned as files under the state
// directory; containers join them by path. No pause process is needed. The network namespace is
// attached to the CNI network (bridge + host-local + portmap by default), with the attach intent
// recorded before CNI ADD so that CNI DEL is always attempted on teardown.
//
// # Failure
//
// Invalid specs are rejected before anything is created, with a [*ValidationError] naming each
// field. A pod that cannot be set up (image, network, create or start failure, in any container
// position and under any start policy) is removed whole and [Runtime.Run] returns a
// [*StartError] naming the container and step; Run never waits for a container that will not
// come.
//
// # containerd going away
//
// When containerd goes away, nothing is reported that did not happen: no exit is recorded for
// a lost connection, nothing is killed or deleted; the Runtime reconnects (starting the state
// dir's private containerd again if it died), takes exits that happened meanwhile from the
// shims, and emits ContainerdUnavailable and ContainerdRecovered events. Calls that need
// containerd meanwhile fail or wait with errors wrapping [ErrUnavailable].
//
// # Packages
//
// Package podlife imports hook, probe, cni, podlife/daemon, podlife/conditions,
// podlife/podsecurity, its internal packages (podlife/internal/...) and the
// repository's internal/clock, crilog, failpoint, logdriver, restart and sandboxns. It must
// never import podlife/kube, podlife/podlifetest, podlife/containerlogger, internal/kubectl,
// internal/podwatch or a command: those build on it. The README's Layout table lists what each
// package owns. The vocabulary (specs, their defaults and validation, status, conditions,
// events, reasons, typed errors, start policies) is declared in podlife/internal/api, which the
// internal packages share, and re-exported here under the same names, but for five families
// that small packages beside this one hold, each where a program that needs it looks:
// podlife/reasons (the reasons, as the kubelet's pkg/kubelet/events), podlife/conditions (the
// pod conditions and their statuses), podlife/startpolicy (PodSpec.StartPolicy and DependsOn),
// podlife/restartrule (ContainerSpec.RestartPolicyRules) and podlife/podsecurity (the Pod
// Security Standards). A program imports podlife, and one of those when it uses the family.
// docs/concepts.md lists the names a typical program uses. Each pod's worker (its
// owner loop and the state only the loop touches) is package podlife/internal/worker's, which
// never sees the Runtime: [Container] is that package's type, re-exported. The warm pools'
// management (making, refilling, taking and removing members) is podlife/internal/warmpool's;
// [Runtime.Prewarm], [Runtime.PoolStats] and [Runtime.ListPoolMembers] wrap it. Adoption and
// the stop or removal of a pod this Runtime does not manage are podlife/internal/adopt's
// ([Runtime.Adopt] and [Pod.Stop] wrap it); a request to another process's pod, and exec and
// attach without the pod's worker, are podlife/internal/remote's; the Runtime's pod table is
// podlife/internal/podtable's, and the choice of the containerd to use
// podlife/internal/endpoint's. None of them sees the Runtime: each gets plain values and
// functions.
package podlife
