package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/containerd/errdefs"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/internal/crilog"
	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// instance is one attempt of a container: its containerd container and task, its log file and
// its process. A restart creates a new instance; the old one is deleted once the new one exists.
type instance struct {
	rt      *Host
	attempt int
	id      string
	pod     *Worker // its loop owns ctr and task once the instance is shared
	// shared is set, before the instance is handed to the pod's loop, by the goroutine that
	// created it; until then that goroutine alone uses the instance.
	shared  bool
	ctr     tasks.Container // nil once deleted
	cg      tasks.Container // ctr, kept after its deletion for its cgroup and its spec (immutable)
	task    tasks.Task      // nil until created, and once deleted
	exitCh  <-chan ctrd.ExitStatus
	log     *crilog.Writer
	logPath string
	// termPath is the host file mounted at the container's TerminationMessagePath ("" for an
	// instance made before messages were collected).
	termPath string
	streams  []io.Closer
	exited   chan struct{} // closed when the process has exited (or will never run)

	// Owned by the pod's loop.
	running bool // the process was started
	// exitRecorded: watchExit recorded the process's exit (set in the same update that
	// publishes it, before inst.exited is closed), so a stop that sees it runs no preStop.
	exitRecorded bool
	startedAt    time.Time
	procSpec     *specs.Process
	cancel       context.CancelFunc // stops this instance's probes
}

// newInstance creates attempt's containerd container and task (runc create) with the log file
// open. The process is not started.
func (c *Container) newInstance(ctx context.Context, attempt int, id string) (*instance, error) {
	p := c.pod
	r := p.rt
	// Not cancellable: a create cancelled half-way can leave a task, a cgroup or a shim that
	// containerd made after the client gave up. It is bounded, and a stop waits for it and
	// then deletes what it made. Only the wait for the pod's shim (withShim) ends with the
	// caller's ctx.
	waitCtx := ctx
	ctx = context.WithoutCancel(ctx)
	t0 := time.Now()
	volumes, private, err := c.volumeMounts(id)
	if err != nil {
		return nil, err
	}
	// runc has made its own mounts from the private ones once the task is created (or failed).
	defer func() {
		if err := private.release(); err != nil {
			p.log.Warn("private volume mounts left", "container", c.spec.Name, "err", err)
		}
	}()
	termPath, termMount, err := c.terminationMount(id)
	if err != nil {
		return nil, err
	}
	volumes = append(volumes, termMount)
	opts, err := c.specOpts(ctx, volumes)
	defer c.unpinTarget() // an ephemeral container's task has joined its target's PID namespace
	if err != nil {
		return nil, err
	}
	labels := p.labels(c)
	labels[LabelAttempt] = strconv.Itoa(attempt)
	labels[labelStopSignal] = strconv.Itoa(int(c.stopSignal))
	t1 := time.Now()
	ctr, err := r.Tasks.NewContainer(ctx, id, p.handler, c.image, labels, p.containerCgroup(id), opts)
	if err != nil {
		if r.LostConn(ctx, err) {
			r.deleteOrphanContainer(ctx, id)
			return nil, fmt.Errorf("create container: %w: %w", errCreateCut, err)
		}
		return nil, fmt.Errorf("create container: %w", err)
	}
	inst := &instance{rt: r, pod: p, attempt: attempt, id: id, ctr: ctr, cg: ctr, termPath: termPath, exited: make(chan struct{})}
	t2 := time.Now()
	var out tasks.Output
	if c.stdin || c.tty {
		// Its output goes to its log too, written by this process (see tasks.TeeAttach).
		out, err = attachOutput(p.sandbox.Dir(), id, c.stdin, c.tty)
		out.StopCopy = r.Closing
		if err == nil {
			var w *crilog.Writer
			var path string
			if w, path, err = openCRILog(filepath.Join(p.sandbox.Dir(), "logs", c.spec.Name), attempt, r.Cfg.Logs); err == nil {
				out.Stdout, out.Stderr = w.Stream("stdout"), w.Stream("stderr")
				inst.log, inst.logPath, inst.streams = w, path, []io.Closer{out.Stdout.(io.Closer), out.Stderr.(io.Closer)}
			}
		}
	} else {
		out, err = inst.openLog(filepath.Join(p.sandbox.Dir(), "logs", c.spec.Name), p.sandbox.FIFODir())
	}
	if err != nil {
		inst.delete(context.WithoutCancel(ctx))
		return nil, err
	}
	err = p.withShim(waitCtx, c, func() error {
		task, err := ctr.NewTask(ctx, out)
		if err == nil {
			inst.task = task
		}
		return err
	})
	if err != nil {
		cut := r.LostConn(ctx, err)
		if cut {
			// containerd may have made the task and lost the connection before it answered:
			// find it once containerd answers again, so that delete removes it (and its shim).
			_ = r.Retry(ctx, func() error {
				t, terr := ctr.LoadTask(ctx)
				if terr == nil {
					inst.task = t
				}
				return terr
			})
		}
		inst.delete(context.WithoutCancel(ctx))
		// A failed runc create can leave the container's (empty) cgroup behind, in some
		// hierarchies and not others.
		if cerr := ctr.SweepCgroup(); cerr != nil {
			p.log.Warn("failed create left its cgroup", "container", c.spec.Name, "err", cerr)
		}
		if cut {
			return nil, fmt.Errorf("create task: %w: %w", errCreateCut, err)
		}
		return nil, fmt.Errorf("create task: %w", private.explain(err))
	}
	t3 := time.Now()
	if inst.exitCh, err = inst.task.Wait(p.watchCtx); err != nil {
		inst.delete(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("wait task: %w", err)
	}
	p.log.Debug("container created", "container", c.spec.Name, "attempt", attempt, "id", id, "spec", t1.Sub(t0),
		"newContainer", t2.Sub(t1), "newTask", t3.Sub(t2))
	return inst, nil
}

// errCreateCut is wrapped by newInstance's error when containerd went away during the create:
// newInstance has waited for it to answer again and deleted what the create made, so the create
// can be tried again at once (a restart does).
var errCreateCut = errors.New("containerd went away during the create")

// deleteOrphanContainer deletes the container id (and its snapshot) if containerd made it
// though NewContainer failed because the connection was lost before containerd answered. It
// waits for containerd to answer again (or the runtime to be closed).
func (r *Host) deleteOrphanContainer(ctx context.Context, id string) {
	var ctr tasks.Container
	err := r.Retry(ctx, func() (err error) {
		ctr, err = r.Tasks.LoadContainer(ctx, id, "")
		return err
	})
	if err != nil {
		return // not made (NotFound), or the runtime was closed
	}
	if err := r.Retry(ctx, func() error { return ctr.Purge(ctx) }); err != nil && !errdefs.IsNotFound(err) {
		r.Log.Warn("container made by a create whose answer was lost is left", "id", id, "err", err)
	}
}

// deleteTask removes the task (and the shim, if it was the last task in it), killing the process
// if it still runs.
func (i *instance) deleteTask(ctx context.Context) error {
	var task tasks.Task
	i.own(func() { task = i.task })
	if task == nil {
		return nil
	}
	err := i.rt.Retry(ctx, func() error {
		return task.Delete(ctx)
	})
	if err != nil && !errdefs.IsNotFound(err) {
		// Deleting tasks of one shim in parallel, the shim may shut down (its last task gone)
		// before it answers another delete it has done ("ttrpc: closed"). containerd tells.
		if i.cg.TaskGone(ctx) {
			err = nil
		}
	}
	for _, s := range i.streams {
		_ = s.Close()
	}
	if i.log != nil {
		_ = i.log.Close()
	}
	i.own(func() { i.task = nil })
	if err != nil && !errdefs.IsNotFound(err) {
		return fmt.Errorf("delete task %s: %w", i.id, err)
	}
	if err := i.cg.RemoveCgroup(); err != nil {
		return fmt.Errorf("container %s: cgroup left behind: %w", i.id, err)
	}
	return nil
}

// deleteContainer removes the containerd container and its snapshot.
func (i *instance) deleteContainer(ctx context.Context) error {
	var ctr tasks.Container
	i.own(func() { ctr = i.ctr })
	if ctr == nil {
		return nil
	}
	err := i.rt.Retry(ctx, func() error { return ctr.Delete(ctx) })
	i.own(func() { i.ctr = nil })
	if err != nil && !errdefs.IsNotFound(err) {
		return fmt.Errorf("delete container %s: %w", i.id, err)
	}
	if i.termPath != "" {
		// Its message was read at its exit; a crash-looping container leaves no file per run.
		if err := os.Remove(i.termPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("container %s: termination message file: %w", i.id, err)
		}
	}
	return nil
}

// delete removes the task and the container.
func (i *instance) delete(ctx context.Context) error {
	var hadTask bool
	i.own(func() { hadTask = i.task != nil })
	err := joinErrs(i.deleteTask(ctx), i.deleteContainer(ctx))
	if !hadTask && err == nil {
		// No task to delete: its creation may have been cut short by containerd going away
		// (NewTask failed, runc had created the cgroup). containerd, starting again, cleans up
		// the half-made shim but leaves that cgroup; deleteContainer has waited for it.
		if cerr := i.cg.SweepCgroup(); cerr != nil {
			err = fmt.Errorf("container %s: cgroup left behind: %w", i.id, cerr)
		}
	}
	return err
}

// own runs f, which reads or writes the instance's owned fields: on the pod's loop once the
// instance is shared, else at once. After the loop ended f is not run.
func (i *instance) own(f func()) {
	if !i.shared {
		f()
		return
	}
	i.pod.do(f)
}

// markNeverRan closes exited for an instance whose process will never run.
func (i *instance) markNeverRan() {
	select {
	case <-i.exited:
	default:
		close(i.exited)
	}
}
