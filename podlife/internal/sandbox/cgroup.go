package sandbox

import (
	"path/filepath"

	"github.com/podlife/podlife/podlife/internal/api"
)

// CgroupPath is the cgroup of a pod with pod-level resources, the parent of its containers'
// cgroups, as the kubelet's kubepods/pod<uid>: /<namespace>/pod<uid> (cgroupfs driver).
func CgroupPath(namespace, uid string) string {
	return filepath.Join("/", namespace, "pod"+uid)
}

// HasLimits reports whether any resource is set.
func HasLimits(r api.Resources) bool {
	return r.CPULimit > 0 || r.CPURequest > 0 || r.MemoryLimit > 0
}
