package ocibuild

import (
	"context"

	"github.com/containerd/containerd/v2/core/containers"
	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/opencontainers/runtime-spec/specs-go"
	"github.com/podlife/podlife/podlife/internal/api"
)

// WithHostDevShm replaces the spec's /dev/shm (a tmpfs of the container's own) with the host's.
func WithHostDevShm(_ context.Context, _ oci.Client, _ *containers.Container, s *specs.Spec) error {
	for i, m := range s.Mounts {
		if m.Destination == "/dev/shm" {
			s.Mounts[i] = BindMount("/dev/shm", "/dev/shm", false)
			return nil
		}
	}
	s.Mounts = append(s.Mounts, BindMount("/dev/shm", "/dev/shm", false))
	return nil
}

func BindMount(src, dst string, ro bool) specs.Mount {
	opts := []string{"rbind", "rprivate"}
	if ro {
		opts = append(opts, "ro")
	} else {
		opts = append(opts, "rw")
	}
	return specs.Mount{Type: "bind", Source: src, Destination: dst, Options: opts}
}

// ResourceOpts maps resources onto cgroup settings as the kubelet does: a CFS quota for the CPU
// limit (100 ms period), cpu shares for the request (1024 per CPU, at least 2: a container
// without a CPU request or limit gets 2, as the kubelet's calculateLinuxResources gives it),
// and memory and memory+swap limits.
func ResourceOpts(r api.Resources) []oci.SpecOpts {
	var opts []oci.SpecOpts
	if r.CPULimit > 0 {
		const period = 100000
		quota := max(r.CPULimit*period/1000, 1000)
		opts = append(opts, oci.WithCPUCFS(quota, period))
	}
	opts = append(opts, oci.WithCPUShares(cpuShares(r)))
	if r.MemoryLimit > 0 {
		opts = append(opts, oci.WithMemoryLimit(uint64(r.MemoryLimit)), oci.WithMemorySwap(r.MemoryLimit))
	}
	return opts
}
