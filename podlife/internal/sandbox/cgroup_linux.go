package sandbox

import (
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/cgroupfs"
)

// CreateCgroup makes the pod cgroup at path with r's limits (see cgroupfs.Create).
func CreateCgroup(path string, r api.Resources) error {
	return cgroupfs.Create(path, cgroupfs.Limits{CPULimit: r.CPULimit, CPURequest: r.CPURequest, MemoryLimit: r.MemoryLimit})
}
