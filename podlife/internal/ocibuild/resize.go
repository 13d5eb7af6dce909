package ocibuild

import (
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/podlife/internal/api"
)

// LinuxResources are the cgroup values of r as ResourceOpts sets them at creation, for an
// update of a running container (an in-place resize): a CFS quota for the CPU limit, cpu
// shares for the request, memory and memory+swap limits. A value r leaves unset is left as it
// is (a resize removes no limit).
func LinuxResources(r api.Resources) *specs.LinuxResources {
	out := &specs.LinuxResources{}
	if r.CPULimit > 0 || r.CPURequest > 0 {
		out.CPU = &specs.LinuxCPU{}
	}
	if r.CPULimit > 0 {
		const period = 100000
		quota, p := max(r.CPULimit*period/1000, 1000), uint64(period)
		out.CPU.Quota, out.CPU.Period = &quota, &p
	}
	if r.CPURequest > 0 {
		shares := uint64(max(r.CPURequest*1024/1000, 2))
		out.CPU.Shares = &shares
	}
	if r.MemoryLimit > 0 {
		limit, swap := r.MemoryLimit, r.MemoryLimit
		out.Memory = &specs.LinuxMemory{Limit: &limit, Swap: &swap}
	}
	return out
}

// CgroupMount is the container's cgroup filesystem at /sys/fs/cgroup, read-only unless the
// container is privileged, as the CRI mounts it in every container: a container reads its own
// limits there (on cgroup v1 each controller's directory of the container, on v2 its cgroup
// namespace's root), as the kubelet's resize checks do.
func CgroupMount(privileged bool) specs.Mount {
	opts := []string{"nosuid", "noexec", "nodev", "relatime", "ro"}
	if privileged {
		opts[len(opts)-1] = "rw"
	}
	return specs.Mount{Source: "cgroup", Destination: "/sys/fs/cgroup", Type: "cgroup", Options: opts}
}
