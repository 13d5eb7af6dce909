package ctrd

import (
	"context"

	"github.com/containerd/containerd/v2/client"
	"github.com/opencontainers/runtime-spec/specs-go"
)

// Update sets the Linux resources of the task's running container (its cgroup), as the CRI's
// UpdateContainerResources does: runc update, through the shim.
func (t *Task) Update(ctx context.Context, r *specs.LinuxResources) error {
	return t.task.Update(ctx, client.WithResources(r))
}
