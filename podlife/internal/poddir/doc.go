// Package poddir holds the on-disk mechanics of the pods' directories under the state dir: the
// pods' lock (StateDir/pods.lock), a pod directory's creation and its removal (renamed to a
// .removing- name first, then deleted without going through a mount), the per-pod adoption lock
// (adopt.lock), and the atomic JSON file writes and reads that pod.json and the other records
// use. The crash points it hits (run.mkdir, remove.renamed, remove.removeall) keep their names.
//
// The pods' lock is exclusive for the startup garbage collection and shared by every step that
// leaves, while it runs, something the collection would take for a crash's leftover: a pod
// directory from its creation (or a warm pool member's take, its rename into pods/) until its
// record is written, or, when that write fails, until the failed start's removal is over; a
// warm pool member's directory until it is flocked and has its record; a pod directory from its
// rename to a .removing- name to the end of its deletion. So a directory without a record, or a
// .removing- one, that the collection sees was left by a process that died.
//
// It knows file names and locks, not what the records hold: package podlife owns their
// content. It must not import package podlife or any of podlife's other packages.
package poddir
