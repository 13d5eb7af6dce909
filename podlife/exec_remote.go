package podlife

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
)

// execRemote runs argv in a running container of a pod in the state directory that this Runtime
// does not manage (see Pod.Exec): in the container's task, with the process settings of its OCI
// spec. The names are valid ones.
func (r *Runtime) execRemote(ctx context.Context, pod, container string, argv []string, streams ExecIO) (int, error) {
	_, ctr, task, err := r.runningTask(ctx, pod, container)
	if err != nil {
		return -1, err
	}
	bg := context.WithoutCancel(r.ctx(ctx))
	ps, err := ctr.ProcessSpec(bg)
	if err != nil {
		return -1, fmt.Errorf("exec in %s/%s: %w", pod, container, err)
	}
	// The shim opens both output FIFOs as soon as any stream is connected: an empty path fails
	// the exec ("opening file \"\" failed").
	if streams.Stdout == nil {
		streams.Stdout = io.Discard
	}
	if streams.Stderr == nil {
		streams.Stderr = io.Discard
	}
	code, err := task.Exec(ctx, bg, *ps, argv, streams, filepath.Join(r.cfg.StateDir, "pods", pod, "fifo"))
	if err != nil && ctx.Err() == nil {
		err = fmt.Errorf("exec in %s/%s: %w", pod, container, err)
	}
	return code, err
}
