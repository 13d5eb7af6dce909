// Package gc is the startup garbage collection of a state dir (podlife.New runs it): it
// deletes what processes that died left of pods they were creating or removing (half-made and
// half-removed pod directories, containerd containers and leases of pods that have no record,
// host-local IP leases of the runtime's bridge), and never touches a pod that has a record.
// It holds the pods' lock exclusively: every step of a live process that leaves something it
// would take for garbage holds it shared (package poddir's doc lists them), and a warm pool
// member's process holds its adoption lock for as long as it keeps it.
//
// It gets what it needs of the Runtime as values (Collector: the state dir, the network, a
// logger) and reaches containerd only through the small interface it declares (Tasks), which
// package podlife adapts from its containerd seam and a test fakes. It reads the pods' records
// and sandbox records for the few fields it needs, by the file names package layout gives. It
// must not import package podlife, podlife/daemon or the pod worker's packages.
package gc
