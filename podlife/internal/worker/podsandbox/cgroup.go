package podsandbox

import (
	"path/filepath"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/cgroupfs"
	"github.com/podlife/podlife/podlife/internal/sandbox"
)

// ContainerCgroup is the cgroup of the pod's container id: under the pod cgroup when the pod
// has pod-level resources r, else containerd's default (/<namespace>/<id>).
func (s *Sandbox) ContainerCgroup(r api.Resources, id string) string {
	if sandbox.HasLimits(r) {
		return filepath.Join(sandbox.CgroupPath(s.namespace, s.uid), id)
	}
	return cgroupfs.Path(s.namespace, id)
}

// CreateCgroup makes the pod cgroup with the pod-level limits r, if the pod has any.
func (s *Sandbox) CreateCgroup(r api.Resources) error {
	if !sandbox.HasLimits(r) {
		return nil
	}
	return sandbox.CreateCgroup(sandbox.CgroupPath(s.namespace, s.uid), r)
}

// RemoveCgroup removes the pod cgroup (once its containers' cgroups are gone), if the pod has
// one (pod-level resources r).
func (s *Sandbox) RemoveCgroup(r api.Resources) error {
	if !sandbox.HasLimits(r) {
		return nil
	}
	return cgroupfs.Sweep(sandbox.CgroupPath(s.namespace, s.uid))
}
