// Package gc is the startup garbage collection of a state dir (podlife.New runs it): it
// deletes what processes that died left of pods they were creating or removing (half-made and
// half-removed pod directories, containerd containers and leases of pods that have no record,
// host-local IP leases of the runtime's bridge), and never touches a pod that has a record.
//
// It gets what it needs of the Runtime as values (Collector: the state dir, the network, a
// logger) and reaches containerd only through the small interface it declares (Tasks), which
// package podlife adapts from its containerd seam and a test fakes. It reads the pods' records
// and sandbox records for the few fields it needs, by the file names package layout gives. It
// must not import package podlife, podlife/daemon or the pod worker's packages.
package gc
