package worker

import (
	"path/filepath"

	"github.com/podlife/podlife/podlife/internal/cgroupfs"
	"github.com/podlife/podlife/podlife/internal/sandbox"
)

// containerCgroup is the cgroup of the pod's container id: under the pod cgroup when the pod has
// pod-level resources, else containerd's default (/<namespace>/<id>).
func (p *Worker) containerCgroup(id string) string {
	if sandbox.HasLimits(p.spec.Resources) {
		return filepath.Join(sandbox.CgroupPath(p.rt.Cfg.Namespace, p.uid), id)
	}
	return cgroupfs.Path(p.rt.Cfg.Namespace, id)
}

// createPodCgroup makes the pod cgroup with the pod-level limits, if the pod has any.
func (p *Worker) createPodCgroup() error {
	if !sandbox.HasLimits(p.spec.Resources) {
		return nil
	}
	return sandbox.CreateCgroup(sandbox.CgroupPath(p.rt.Cfg.Namespace, p.uid), p.spec.Resources)
}

// removePodCgroup removes the pod cgroup (once its containers' cgroups are gone), if the pod
// has one.
func (p *Worker) removePodCgroup() error {
	if !sandbox.HasLimits(p.spec.Resources) {
		return nil
	}
	return cgroupfs.Sweep(sandbox.CgroupPath(p.rt.Cfg.Namespace, p.uid))
}
