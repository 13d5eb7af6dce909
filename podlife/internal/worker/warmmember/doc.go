// Package warmmember is what a warm pool member does, for its pod worker
// (podlife/internal/worker): a member is a pod worker whose start sequence stops before the
// processes, kept ready by the Runtime's pools (podlife/internal/warmpool) and taken by Run.
//
// # What it owns
//
//   - The make (Member.Make, the worker's Prewarm): the lease, the sandbox, its cgroup, then
//     the network attach meanwhile the pause starts and every container is prepared.
//   - The take (Member.Claim, the worker's ClaimMember): the checks (no created process gone,
//     each image's name still resolving to the digest the member was made from), the move of
//     the member's directory to the pod's under the pods' lock, the pod's identity handed to
//     the worker (Identity), the rewrite of the /etc files and the hostname in a goroutine
//     meanwhile the record is written, the registration.
//   - The start of a taken member (Member.Start): only the processes start, once the /etc
//     files are the pod's; its first record, renamed into place unsynced (WriteRecord), is
//     synced meanwhile and awaited before Run returns; once the processes started, the
//     containers' containerd labels become the pod's (relabel); the step by step timings of
//     the take and start for the debug log (trace).
//   - The member's own state between those steps (Member), and the forwarding of a created
//     process's exit that marks the member dead (ForwardExit).
//
// # What it does not own
//
// The pod's state stays the worker's: the steps that read or write it are those of the cold
// start (the sandbox's, the network attach and its outcome, the pause, the containers'
// preparations, the init containers and the start policy: Pod.Steps, a podstart.Pod), plus the
// identity change and the snapshot of the containers (Pod's methods), run on the pod's loop
// where the state is touched; values cross them as snapshots. Every goroutine it starts is the
// worker's (counted and awaited by the worker's group), but Make's preparations, which end
// before it returns. When a member is made, which one Run takes and its removal are the
// warmpool Manager's and the worker's (NewMember, DiscardMember, WatchMember).
//
// # What it may use
//
// It imports podlife/internal/api, tasks, ctrd (exit statuses), eventbus, layout, poddir, the
// worker's podsandbox, podstart and record packages, internal/sandboxns and internal/failpoint
// (its crash points: pool.sandbox, pool.attached, pool.created, take.*). It must not import
// the worker (arrows point worker -> warmmember), podlife/internal/warmpool, package podlife,
// adoption, the startup GC (podlife/internal/gc), the control socket
// (podlife/internal/control) or podlife/daemon (TestPackageArrows checks it).
package warmmember
