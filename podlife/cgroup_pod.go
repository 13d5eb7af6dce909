package podlife

import (
	"path/filepath"

	"github.com/podlife/podlife/podlife/internal/cgroupfs"
)

// podCgroupPath is the cgroup of a pod with pod-level resources, the parent of its containers'
// cgroups, as the kubelet's kubepods/pod<uid>: /<namespace>/pod<uid> (cgroupfs driver).
func podCgroupPath(namespace, uid string) string {
	return filepath.Join("/", namespace, "pod"+uid)
}

// hasLimits reports whether any resource is set.
func hasLimits(r Resources) bool {
	return r.CPULimit > 0 || r.CPURequest > 0 || r.MemoryLimit > 0
}

// containerCgroup is the cgroup of the pod's container id: under the pod cgroup when the pod has
// pod-level resources, else containerd's default (/<namespace>/<id>).
func (p *podWorker) containerCgroup(id string) string {
	if hasLimits(p.spec.Resources) {
		return filepath.Join(podCgroupPath(p.rt.cfg.Namespace, p.uid), id)
	}
	return cgroupfs.Path(p.rt.cfg.Namespace, id)
}

// createPodCgroup makes the pod cgroup with the pod-level limits, if the pod has any.
func (p *podWorker) createPodCgroup() error {
	if !hasLimits(p.spec.Resources) {
		return nil
	}
	return createCgroup(podCgroupPath(p.rt.cfg.Namespace, p.uid), p.spec.Resources)
}

// removePodCgroup removes the pod cgroup (once its containers' cgroups are gone), if the pod
// has one.
func (p *podWorker) removePodCgroup() error {
	if !hasLimits(p.spec.Resources) {
		return nil
	}
	return cgroupfs.Sweep(podCgroupPath(p.rt.cfg.Namespace, p.uid))
}
