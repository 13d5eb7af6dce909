// Package eviction decides, as the kubelet's eviction manager does, when a pod is evicted for
// its local storage and when the node's filesystem is too full to admit a new pod. It is pure:
// callers measure (the pod's emptyDir volumes on disk, each container's writable layer and
// logs, the state directory's filesystem) and act (stop the pod, refuse it, emit events); this
// package compares and words the outcome with the kubelet's reasons and messages
// (pkg/kubelet/eviction). It reads a pod's limits and disk-backed volumes from its spec
// (PodLimits, DiskVolumes) and holds the eviction manager's timings (DefaultPeriod, Grace).
// It never imports package podlife or the pod worker.
package eviction
