package tasks

import (
	"context"

	"github.com/opencontainers/runtime-spec/specs-go"
)

// Updater is a Task whose running container's resources can be changed in place (an in-place
// resize, Pod.Resize): containerd's tasks are; a fake's need not be.
type Updater interface {
	// Update sets the container's Linux resources (its cgroup's CPU and memory values).
	Update(ctx context.Context, r *specs.LinuxResources) error
}

// Update sets the task's container's Linux resources (see Updater).
func (t ctrdTask) Update(ctx context.Context, r *specs.LinuxResources) error {
	return t.task.Update(ctx, r)
}
