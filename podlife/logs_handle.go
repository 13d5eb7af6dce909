package podlife

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/podlife/podlife/podlife/internal/logs"
)

// LogOptions select what Pod.Logs writes.
type LogOptions struct {
	// Previous writes the log of the container's previous attempt (kubectl logs --previous).
	Previous bool
	// Follow goes on writing as the container writes, across its restarts and its log's
	// rotations, until ctx ends, the pod ends (Succeeded or Failed) or is removed, or the
	// container is an ephemeral one that exited (kubectl logs -f).
	Follow bool
}

// logs writes the output of a container of any pod in the state directory to w, whichever
// process manages it, or none (see Pod.Logs): it reads the log files under the pod's directory.
func (r *Runtime) logs(ctx context.Context, pod, container string, opts LogOptions, w io.Writer) error {
	rec, err := r.LookupPod(ctx, pod)
	if err != nil {
		return err
	}
	if err := checkName("container", container); err != nil {
		return err
	}
	// A follower waits for a container that the status (written by its manager, maybe another
	// process) does not show yet: an ephemeral container just added.
	if !opts.Follow && !slices.ContainsFunc(rec.allStatuses(), func(cs ContainerStatus) bool { return cs.Name == container }) {
		return fmt.Errorf("container %q in pod %q: %w", container, pod, ErrNotFound)
	}
	req := logs.Request{Pod: pod, Container: container, Previous: opts.Previous, Follow: opts.Follow}
	files := func() []string { return rec.logFiles(container) }
	ended := func(ctx context.Context) bool {
		rec, err := r.LookupPod(ctx, pod)
		return err != nil || logs.Ended(rec.Status, container)
	}
	return logs.Write(ctx, w, req, files, ended)
}

// allStatuses are the statuses of every container of the pod, ephemeral ones included.
func (r PodRecord) allStatuses() []ContainerStatus {
	s := r.Status
	return slices.Concat(s.InitContainerStatuses, s.ContainerStatuses, s.EphemeralContainerStatuses)
}
