package podlife

import (
	"fmt"
	"path/filepath"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// podCgroupPath is the cgroup of a pod with pod-level resources, the parent of its containers'
// cgroups, as the kubelet's kubepods/pod<uid>: /<namespace>/pod<uid> (cgroupfs driver).
func podCgroupPath(namespace, uid string) string {
	return filepath.Join("/", namespace, "pod"+uid)
}

// hasLimits reports whether any resource is set.
func (r Resources) hasLimits() bool {
	return r.CPULimit > 0 || r.CPURequest > 0 || r.MemoryLimit > 0
}

// containerCgroup is the cgroup of the pod's container id: under the pod cgroup when the pod has
// pod-level resources, else containerd's default (/<namespace>/<id>).
func (p *Pod) containerCgroup(id string) string {
	if p.spec.Resources.hasLimits() {
		return filepath.Join(podCgroupPath(p.rt.cfg.Namespace, p.uid), id)
	}
	return cgroupPath(p.rt.cfg.Namespace, id)
}

// createPodCgroup makes the pod cgroup with the pod-level limits, if the pod has any.
func (p *Pod) createPodCgroup() error {
	if !p.spec.Resources.hasLimits() {
		return nil
	}
	return createCgroup(podCgroupPath(p.rt.cfg.Namespace, p.uid), p.spec.Resources)
}

// removePodCgroup removes the pod cgroup (once its containers' cgroups are gone), if the pod
// has one.
func (p *Pod) removePodCgroup() error {
	if !p.spec.Resources.hasLimits() {
		return nil
	}
	return sweepCgroup(podCgroupPath(p.rt.cfg.Namespace, p.uid))
}

// validatePodResources checks pod-level resources as the API server does: none negative, the
// CPU request within the limit, the containers' CPU requests together within the pod's, and
// each container's limits within the pod's.
func validatePodResources(p *field.Path, s *PodSpec) field.ErrorList {
	var errs field.ErrorList
	r := s.Resources
	for _, f := range []struct {
		path string
		v    int64
	}{{"limits.cpu", r.CPULimit}, {"requests.cpu", r.CPURequest}, {"limits.memory", r.MemoryLimit}} {
		if f.v < 0 {
			errs = append(errs, field.Invalid(p.Child(f.path), f.v, "must be greater than or equal to 0"))
		}
	}
	if r.CPULimit > 0 && r.CPURequest > r.CPULimit {
		errs = append(errs, field.Invalid(p.Child("requests").Key("cpu"), milliCPU(r.CPURequest), "must be less than or equal to cpu limit of "+milliCPU(r.CPULimit)))
	}
	if r.CPURequest > 0 {
		var sum int64
		for _, c := range s.Containers {
			sum += c.Resources.CPURequest
		}
		if sum > r.CPURequest {
			errs = append(errs, field.Invalid(p.Child("requests").Key("cpu"), milliCPU(r.CPURequest), "must be greater than or equal to aggregate container requests of "+milliCPU(sum)))
		}
	}
	for _, cs := range [][]ContainerSpec{s.InitContainers, s.Containers} {
		for _, c := range cs {
			if r.CPULimit > 0 && c.Resources.CPULimit > r.CPULimit {
				errs = append(errs, field.Invalid(p.Child("limits").Key("cpu"), milliCPU(r.CPULimit),
					fmt.Sprintf("must be greater than or equal to the cpu limit of container %q (%s)", c.Name, milliCPU(c.Resources.CPULimit))))
			}
			if r.MemoryLimit > 0 && c.Resources.MemoryLimit > r.MemoryLimit {
				errs = append(errs, field.Invalid(p.Child("limits").Key("memory"), r.MemoryLimit,
					fmt.Sprintf("must be greater than or equal to the memory limit of container %q (%d)", c.Name, c.Resources.MemoryLimit)))
			}
		}
	}
	return errs
}

func milliCPU(m int64) string { return strconv.FormatInt(m, 10) + "m" }
