// Package record writes and reads the records a pod's worker keeps in the pod's directory for
// other processes: pod.json (Record: who manages the pod, its spec without values and its
// fingerprints, written through a Writer), status.json (the pod's status, rewritten at each
// change by PersistStatus) and supervision.json (Supervision: the postStart hook in flight,
// the startup probe's success, the crash-loop back-off and the stop begun, written through a
// SupervisionWriter), and how an adopter reads an updated active deadline against the record
// (DeadlineUpdate). The file formats are those older managers wrote and read.
//
// The worker hands it values, taken on the pod's loop: never the worker. Its writers' locks
// guard their files' writes and the files' content, never the pod's state: a Writer writes
// the snapshots in the order of their tickets, taken on the loop, and skips one older than
// the file's. It must not import the pod worker (podlife/internal/worker), package podlife,
// podlife/internal/ctrd, podlife/internal/tasks or podlife/daemon (TestPackageArrows).
package record
