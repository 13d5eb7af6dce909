package attempt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/containerd/errdefs"

	"github.com/podlife/podlife/podlife/internal/tasks"
)

// DeleteTask removes the task of attempt id (and the shim, if it was the last task in it),
// killing the process if it still runs; closes closers (its log's, see Log.Closers); calls
// forget, with which the worker drops the task from its state; and removes the cgroup of cg
// (the attempt's container) if runc left it behind.
func DeleteTask(ctx context.Context, conn Conn, id string, task tasks.Task, cg tasks.Container, closers []io.Closer, forget func()) error {
	err := conn.Retry(ctx, func() error {
		return task.Delete(ctx)
	})
	if err != nil && !errdefs.IsNotFound(err) {
		// Deleting tasks of one shim in parallel, the shim may shut down (its last task gone)
		// before it answers another delete it has done ("ttrpc: closed"). containerd tells.
		if cg.TaskGone(ctx) {
			err = nil
		}
	}
	for _, c := range closers {
		_ = c.Close()
	}
	forget()
	if err != nil && !errdefs.IsNotFound(err) {
		return fmt.Errorf("delete task %s: %w", id, err)
	}
	if err := cg.RemoveCgroup(); err != nil {
		return fmt.Errorf("container %s: cgroup left behind: %w", id, err)
	}
	return nil
}

// DeleteContainer removes the containerd container of attempt id and its snapshot, calls
// forget, with which the worker drops it from its state, and removes its termination message
// file termPath (if any).
func DeleteContainer(ctx context.Context, conn Conn, id string, ctr tasks.Container, termPath string, forget func()) error {
	err := conn.Retry(ctx, func() error { return ctr.Delete(ctx) })
	forget()
	if err != nil && !errdefs.IsNotFound(err) {
		return fmt.Errorf("delete container %s: %w", id, err)
	}
	if termPath != "" {
		// Its message was read at its exit; a crash-looping container leaves no file per run.
		if err := os.Remove(termPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("container %s: termination message file: %w", id, err)
		}
	}
	return nil
}

// SweepCgroup removes, after the deletion of an attempt that had no task, the cgroup of its
// container cg: its creation may have been cut short by containerd going away (NewTask failed,
// runc had created the cgroup). containerd, starting again, cleans up the half-made shim but
// leaves that cgroup; the container's deletion has waited for it.
func SweepCgroup(id string, cg tasks.Container) error {
	if err := cg.SweepCgroup(); err != nil {
		return fmt.Errorf("container %s: cgroup left behind: %w", id, err)
	}
	return nil
}

// deleteOrphanContainer deletes the container id (and its snapshot) if containerd made it
// though NewContainer failed because the connection was lost before containerd answered. It
// waits for containerd to answer again (or the runtime to be closed).
func deleteOrphanContainer(ctx context.Context, conn Conn, id string) {
	var ctr tasks.Container
	err := conn.Retry(ctx, func() (err error) {
		ctr, err = conn.Tasks.LoadContainer(ctx, id, "")
		return err
	})
	if err != nil {
		return // not made (NotFound), or the runtime was closed
	}
	if err := conn.Retry(ctx, func() error { return ctr.Purge(ctx) }); err != nil && !errdefs.IsNotFound(err) {
		conn.Log.Warn("container made by a create whose answer was lost is left", "id", id, "err", err)
	}
}
