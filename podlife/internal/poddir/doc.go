// Package poddir holds the on-disk mechanics of the pods' directories under the state dir: the
// pods' lock (StateDir/pods.lock: shared while a pod directory is created and filled in, and while
// one is removed; exclusive for the startup garbage collection), a pod directory's creation and its removal
// (renamed to a .removing- name first, then deleted without going through a mount), the
// per-pod adoption lock (adopt.lock), and the atomic JSON file writes and reads that pod.json
// and the other records use. The crash points it hits (run.mkdir, remove.renamed,
// remove.removeall) keep their names.
//
// It knows file names and locks, not what the records hold: package podlife owns their
// content. It must not import package podlife or any of podlife's other packages.
package poddir
