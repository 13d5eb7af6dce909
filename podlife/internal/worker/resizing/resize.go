package resizing

import (
	"context"
	"fmt"
	"slices"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/ocibuild"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// Target is the container a resize changes, with its pod, as [Resize] needs them; the worker
// implements it: each method runs closures on the worker's loop or does its I/O, and returns
// values.
type Target interface {
	// Stopping reports whether the pod's stop has begun.
	Stopping() bool
	// Allocated returns the CPU and memory of the pod's init and app containers as allocated
	// (the spec's, or the last resize's), by name.
	Allocated() map[string]api.Resources
	// Running returns the ID and task of the container's running instance, "" and nil if none.
	Running() (id string, task tasks.Task)
	// Allocate makes next the container's allocated resources: its status shows them, its next
	// instance is created with them and the pod's record holds them ([Record]).
	Allocate(next api.Resources)
	// Emit records an event of the container.
	Emit(typ api.EventType, reason api.Reason, msg string)
	// Restart stops the running instance (its preStop hook and grace period, as the kubelet's
	// kill for a resize) and waits, within ctx, until its next instance, created with the new
	// resources, has replaced it: at once, the crash-loop back-off reset.
	Restart(ctx context.Context)
}

// Host is what a resize needs of the Runtime: its tasks seam (the running containers' usage),
// and Retry, which runs a call until it succeeds or fails for another reason than a lost
// connection to containerd.
type Host struct {
	Tasks tasks.Runtime
	Retry func(ctx context.Context, call func() error) error
}

// Resize changes the CPU and memory of container c of the running pod (named pod, spec spec)
// to next (see the package comment). It returns a *api.ValidationError for a resize the API
// server would refuse, and one wrapping api.ErrResizeNotNow for one that cannot be done now.
func Resize(ctx context.Context, t Target, h Host, pod string, spec *api.PodSpec, c *api.ContainerSpec, next api.Resources) error {
	if t.Stopping() {
		return fmt.Errorf("resize: pod %q: %w", pod, api.ErrPodStopping)
	}
	cur := t.Allocated()
	if errs := api.CheckResize(spec, cur, c.Name, next); len(errs) > 0 {
		return &api.ValidationError{Pod: pod, Errs: errs}
	}
	old := cur[c.Name]
	if old == next {
		return nil
	}
	restart := c.ResizePolicy.Restarts(old, next)
	id, task := t.Running()
	if task != nil && !restart {
		if err := InPlace(ctx, h, pod, c.Name, id, task, old, next); err != nil {
			return err
		}
	}
	t.Allocate(next) // and its status shows the new resources
	t.Emit(api.EventNormal, api.ReasonResized, fmt.Sprintf("Container %s resized: %s", c.Name, Describe(next)))
	if task != nil && restart {
		t.Restart(ctx)
	}
	return nil
}

// InPlace updates the cgroup of the running instance id (task) of container name. A memory
// limit is not decreased to or below what the container uses (the kubelet's
// validateMemoryResizeAction): the error then wraps api.ErrResizeNotNow.
func InPlace(ctx context.Context, h Host, pod, name, id string, task tasks.Task, old, next api.Resources) error {
	up, ok := task.(tasks.Updater)
	if !ok {
		return fmt.Errorf("resize: pod %q: container %q: the runtime cannot update a running container: %w", pod, name, api.ErrNotSupported)
	}
	if next.MemoryLimit > 0 && (old.MemoryLimit == 0 || next.MemoryLimit < old.MemoryLimit) {
		samples, err := h.Tasks.Sample(ctx, []string{id})
		s, found := samples[id]
		switch {
		case err != nil:
			return fmt.Errorf("resize: pod %q: container %q: memory usage: %w", pod, name, err)
		case !found || !s.Running:
			return fmt.Errorf("resize: pod %q: container %q: missing memory usage: %w", pod, name, api.ErrResizeNotNow)
		case s.Metrics.MemoryUsage >= uint64(next.MemoryLimit):
			return fmt.Errorf("resize: pod %q: cannot decrease memory limits: attempting to set container %q memory limit (%d) below current usage (%d): %w",
				pod, name, next.MemoryLimit, s.Metrics.MemoryUsage, api.ErrResizeNotNow)
		}
	}
	if err := h.Retry(ctx, func() error { return up.Update(ctx, ocibuild.LinuxResources(next)) }); err != nil {
		return fmt.Errorf("resize: pod %q: container %q: update: %w", pod, name, err)
	}
	return nil
}

// Record writes next as the resources of the named container (an init container if init) into
// spec, the pod's record's form of its spec: its spec and fingerprints are then those of the
// spec as resized (see the package comment).
func Record(spec *api.PodSpec, init bool, name string, next api.Resources) {
	list := &spec.Containers
	if init {
		list = &spec.InitContainers
	}
	*list = slices.Clone(*list) // the recorded form may share its array with another spec
	for i := range *list {
		if (*list)[i].Name == name {
			(*list)[i].Resources = next
		}
	}
}

// Describe renders r as a resize event's message: Kubernetes' quantities.
func Describe(r api.Resources) string {
	return fmt.Sprintf("requests cpu=%dm memory=%d, limits cpu=%dm memory=%d", r.CPURequest, r.MemoryRequest, r.CPULimit, r.MemoryLimit)
}
