package attempt

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/containerd/containerd/v2/pkg/oci"

	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// ErrCreateCut is wrapped by Create's error when containerd went away during the create:
// Create has waited for it to answer again and deleted what the create made, so the create can
// be tried again at once (a restart does).
var ErrCreateCut = errors.New("containerd went away during the create")

// Spec is what Create needs to make an attempt's containerd objects.
type Spec struct {
	ID      string // its containerd ID
	Attempt int    // its number (its log file's)
	Name    string // its container's name (its log directory's)
	Class   tasks.Class
	Image   tasks.Image
	Labels  map[string]string
	Cgroup  string
	Opts    []oci.SpecOpts // the container's OCI spec options
	// PodDir is the pod's directory (logs/<Name>, attach/); FIFODir the directory of the FIFOs
	// of the output that this process copies.
	PodDir, FIFODir string
	// Stdin, TTY: an interactive container, whose output this process copies to its log and
	// to attached clients.
	Stdin, TTY bool
	Logs       LogConfig
	// TermPath is its termination message file (see TerminationMount), removed with it if the
	// create fails.
	TermPath string
	// WithShim runs create, the task's create, once the pod's shim allows it (the worker's
	// withShim); its error is create's, or the reason it was not run.
	WithShim func(create func() error) error
	// Explain words a failed task create's error (the private volume mounts' part in it).
	Explain func(error) error
	// WatchCtx is the context of the wait for the exit (the pod's watch: the Runtime's close
	// ends it).
	WatchCtx context.Context
}

// Created is an attempt as Create made it: its container and task (created, not started), the
// channel of its exit, its log.
type Created struct {
	Ctr  tasks.Container
	Task tasks.Task
	Exit <-chan ctrd.ExitStatus
	Log  Log
	// NewContainer and NewTask are how long containerd took to make each.
	NewContainer, NewTask time.Duration
}

// Create makes the attempt's containerd container and task (runc create) with its output going
// to its log; the process is not started. ctx must not be cancellable: a create cancelled
// half-way can leave a task, a cgroup or a shim that containerd made after the client gave up.
// It is bounded, and a stop waits for it and then deletes what it made; only WithShim's wait
// for the pod's shim may end early. If it fails, what it made is deleted.
func Create(ctx context.Context, conn Conn, s Spec) (Created, error) {
	t1 := time.Now()
	ctr, err := conn.Tasks.NewContainer(ctx, s.ID, s.Class, s.Image, s.Labels, s.Cgroup, s.Opts)
	if err != nil {
		if conn.LostConn(ctx, err) {
			deleteOrphanContainer(ctx, conn, s.ID)
			return Created{}, fmt.Errorf("create container: %w: %w", ErrCreateCut, err)
		}
		return Created{}, fmt.Errorf("create container: %w", err)
	}
	c := Created{Ctr: ctr}
	t2 := time.Now()
	var out tasks.Output
	logDir := filepath.Join(s.PodDir, "logs", s.Name)
	if s.Stdin || s.TTY {
		// Its output goes to its log too, written by this process (see tasks.TeeAttach).
		out, c.Log, err = interactiveOutput(s.PodDir, logDir, s.ID, s.Attempt, s.Stdin, s.TTY, s.Logs.Limits, conn.Closing)
	} else {
		out, c.Log, err = OpenLog(logDir, s.FIFODir, s.Attempt, s.Logs)
	}
	if err != nil {
		_ = c.delete(ctx, conn, s)
		return Created{}, err
	}
	err = s.WithShim(func() error {
		task, err := ctr.NewTask(ctx, out)
		if err == nil {
			c.Task = task
		}
		return err
	})
	if err != nil {
		cut := conn.LostConn(ctx, err)
		if cut {
			// containerd may have made the task and lost the connection before it answered:
			// find it once containerd answers again, so that delete removes it (and its shim).
			_ = conn.Retry(ctx, func() error {
				t, terr := ctr.LoadTask(ctx)
				if terr == nil {
					c.Task = t
				}
				return terr
			})
		}
		_ = c.delete(ctx, conn, s)
		// A failed runc create can leave the container's (empty) cgroup behind, in some
		// hierarchies and not others.
		if cerr := ctr.SweepCgroup(); cerr != nil {
			conn.Log.Warn("failed create left its cgroup", "container", s.Name, "err", cerr)
		}
		if cut {
			return Created{}, fmt.Errorf("create task: %w: %w", ErrCreateCut, err)
		}
		return Created{}, fmt.Errorf("create task: %w", s.Explain(err))
	}
	t3 := time.Now()
	if c.Exit, err = c.Task.Wait(s.WatchCtx); err != nil {
		_ = c.delete(ctx, conn, s)
		return Created{}, fmt.Errorf("wait task: %w", err)
	}
	c.NewContainer, c.NewTask = t2.Sub(t1), t3.Sub(t2)
	return c, nil
}

// delete removes what a failed Create made: the task (if made; else it closes the log's files
// and streams, which the task's deletion closes), the container, the termination message file,
// and the cgroup a create cut short left.
func (c *Created) delete(ctx context.Context, conn Conn, s Spec) error {
	var errs []error
	hadTask := c.Task != nil
	if hadTask {
		errs = append(errs, DeleteTask(ctx, conn, s.ID, c.Task, c.Ctr, c.Log.Closers(), func() { c.Task = nil }))
	} else {
		for _, cl := range c.Log.Closers() {
			_ = cl.Close()
		}
	}
	errs = append(errs, DeleteContainer(ctx, conn, s.ID, c.Ctr, s.TermPath, func() {}))
	err := errors.Join(errs...)
	if !hadTask && err == nil {
		err = SweepCgroup(s.ID, c.Ctr)
	}
	return err
}
