package worker

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/internal/crilog"
	"github.com/podlife/podlife/internal/execgate"
	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/attempt"
	"github.com/podlife/podlife/podlife/internal/worker/creating"
)

// instance is one attempt of a container: its containerd container and task, its log file and
// its process. A restart creates a new instance; the old one is deleted once the new one exists.
type instance struct {
	host    *Host
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
	// gate is the exec gate the process waits behind (a warm pool member's; nil: none): its
	// start is the gate's release, not the task's (see newGatedInstance).
	gate *execgate.FIFO

	// Owned by the pod's loop.
	running bool // the process was started
	// exitRecorded: watchExit recorded the process's exit (set in the same update that
	// publishes it, before inst.exited is closed), so a stop that sees it runs no preStop.
	exitRecorded bool
	startedAt    time.Time
	procSpec     *specs.Process
	cancel       context.CancelFunc // stops this instance's probes
}

// newInstance creates attempt n's containerd container and task (runc create) with the log
// file open (see creating.Make). The process is not started.
func (c *Container) newInstance(ctx context.Context, n int, id string) (*instance, error) {
	return c.newInstanceWith(ctx, n, id, nil)
}

// newInstanceWith is newInstance with last, if set, changing the OCI spec after every other
// option (see creating.Attempt.Last).
func (c *Container) newInstanceWith(ctx context.Context, n int, id string, last func(*specs.Spec) error) (*instance, error) {
	p, r := c.pod, c.pod.host
	defer c.unpinTarget() // an ephemeral container's task has joined its target's PID namespace
	made, err := creating.Make(ctx, p.conn(), creating.Attempt{Spec: c.specInput(), VolumeDir: p.sandbox.VolumeDir, StopSignal: c.stopSignal, Last: last,
		Create: attempt.Spec{ID: id, Attempt: n, Name: c.spec.Name, Class: p.handler, Image: c.image, Labels: p.labels(c),
			Cgroup: p.containerCgroup(id), PodDir: p.sandbox.Dir(), FIFODir: p.sandbox.FIFODir(), Stdin: c.stdin, TTY: c.tty,
			Logs:     attempt.LogConfig{Logger: r.Cfg.ContainerLogger, Limits: r.Cfg.Logs, StateDir: r.Cfg.StateDir, Shared: r.SharedLogger},
			WithShim: func(create func() error) error { return p.withShim(ctx, c, create) }, WatchCtx: p.watchCtx}})
	if err != nil {
		return nil, err
	}
	return &instance{host: r, pod: p, attempt: n, id: id, ctr: made.Ctr, cg: made.Ctr, task: made.Task, exitCh: made.Exit,
		log: made.Log.Writer, logPath: made.Log.Path, streams: made.Log.Streams, termPath: made.TermPath, exited: make(chan struct{})}, nil
}

// errCreateCut is wrapped by newInstance's error when containerd went away during the create
// (see attempt.ErrCreateCut): the create can be tried again at once.
var errCreateCut = attempt.ErrCreateCut

// conn is what the attempt package's calls need of the Host (attempt.Conn), logging to log.
func (r *Host) conn(log *slog.Logger) attempt.Conn {
	return attempt.Conn{Tasks: r.Tasks, LostConn: r.LostConn, Retry: r.Retry, Disconnected: r.Disconnected,
		ConnUp: r.ConnUp, Closing: r.Closing, IsClosed: r.IsClosed, Log: log}
}

// conn is the Host's attempt.Conn, logging to the pod's log.
func (p *Worker) conn() attempt.Conn { return p.host.conn(p.log) }

// logs is the instance's log as the attempt package sees it.
func (i *instance) logs() attempt.Log {
	return attempt.Log{Path: i.logPath, Writer: i.log, Streams: i.streams}
}

// deleteTask removes the task (and the shim, if it was the last task in it), killing the process
// if it still runs (see attempt.DeleteTask).
func (i *instance) deleteTask(ctx context.Context) error {
	var task tasks.Task
	if i.own(func() { task = i.task }); task == nil {
		return nil
	}
	return attempt.DeleteTask(ctx, i.host.conn(i.host.Log), i.id, task, i.cg, i.logs().Closers(), func() { i.own(func() { i.task = nil }) })
}

// deleteContainer removes the containerd container and its snapshot, and the termination
// message file.
func (i *instance) deleteContainer(ctx context.Context) error {
	var ctr tasks.Container
	if i.own(func() { ctr = i.ctr }); ctr == nil {
		return nil
	}
	return attempt.DeleteContainer(ctx, i.host.conn(i.host.Log), i.id, ctr, i.termPath, func() { i.own(func() { i.ctr = nil }) })
}

// delete removes the task and the container; without a task, the cgroups of a creation that
// may have been cut short (see attempt.SweepCgroup).
func (i *instance) delete(ctx context.Context) error {
	var hadTask bool
	i.own(func() { hadTask = i.task != nil })
	if err := errors.Join(i.deleteTask(ctx), i.deleteContainer(ctx)); err != nil || hadTask {
		return err
	}
	return attempt.SweepCgroup(i.id, i.cg)
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
