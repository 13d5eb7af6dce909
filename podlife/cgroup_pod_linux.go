package podlife

import "github.com/podlife/podlife/podlife/internal/cgroupfs"

// createCgroup makes the pod cgroup at path with r's limits (see cgroupfs.Create).
func createCgroup(path string, r Resources) error {
	return cgroupfs.Create(path, cgroupfs.Limits{CPULimit: r.CPULimit, CPURequest: r.CPURequest, MemoryLimit: r.MemoryLimit})
}
