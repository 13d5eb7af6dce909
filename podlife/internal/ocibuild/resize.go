package ocibuild

import (
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/podlife/internal/api"
)

// LinuxResources are the cgroup values of r as ResourceOpts sets them at creation, for an
// update of a running container (an in-place resize): a CFS quota for the CPU limit, cpu
// shares for the request (2 without one), memory and memory+swap limits. A limit r leaves unset
// is left as it is (a resize removes no limit).
func LinuxResources(r api.Resources) *specs.LinuxResources {
	shares := cpuShares(r)
	out := &specs.LinuxResources{CPU: &specs.LinuxCPU{Shares: &shares}}
	if r.CPULimit > 0 {
		const period = 100000
		quota, p := max(r.CPULimit*period/1000, 1000), uint64(period)
		out.CPU.Quota, out.CPU.Period = &quota, &p
	}
	if r.MemoryLimit > 0 {
		limit, swap := r.MemoryLimit, r.MemoryLimit
		out.Memory = &specs.LinuxMemory{Limit: &limit, Swap: &swap}
	}
	return out
}

// cpuShares are the cpu shares of r as the kubelet computes them (MilliCPUToShares): 1024 per
// CPU of the request (of the limit where no request is set), at least 2.
func cpuShares(r api.Resources) uint64 {
	m := r.CPURequest
	if m == 0 {
		m = r.CPULimit
	}
	return uint64(max(m*1024/1000, 2))
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
