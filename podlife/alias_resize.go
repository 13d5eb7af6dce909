package podlife

import "github.com/podlife/podlife/podlife/internal/api"

// ResizePolicy is a container's resize policy per resource (Kubernetes' resizePolicy). Its
// fields are documented at [api.ResizePolicy].
type ResizePolicy = api.ResizePolicy

// ResizeRestartPolicy says whether resizing a resource restarts the container.
type ResizeRestartPolicy = api.ResizeRestartPolicy

// Resize restart policies (see Pod.Resize).
const (
	// ResizeNotRequired: the running container's cgroup is updated in place (the default).
	ResizeNotRequired = api.ResizeNotRequired
	// ResizeRestartContainer: the container is restarted with the new resources.
	ResizeRestartContainer = api.ResizeRestartContainer
)

// ErrResizeNotNow: a valid resize cannot be actuated now (a memory limit below the
// container's current usage); it may succeed later (see Pod.Resize).
var ErrResizeNotNow = api.ErrResizeNotNow
