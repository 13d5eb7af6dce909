// Package usage samples what pods use: CPU, memory, OOM kills and processes of each running
// container (its task's metrics, as package ctrd reads them), the traffic of a pod's network
// namespace (/proc/<pid>/net/dev), and what a pod keeps on disk (its logs, volumes and
// writable layers). It owns the usage types that package podlife re-exports (PodUsage,
// ContainerUsage, NetworkUsage, DiskUsage) and the sampling of one pod or of many with one
// listing of containers.
//
// It needs containerd only through the small interfaces it declares (Source, Snapshots):
// package podlife adapts its containerd seam to them, and a test gives a fake. It reads no
// pod record: the caller says which pods (Pod: name, UID, host network). It must not import
// package podlife, the pod worker's packages or podlife/daemon.
package usage
