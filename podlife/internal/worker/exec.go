package worker

import (
	"github.com/containerd/errdefs"
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"fmt"
	"syscall"

	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/attempt"
)

// current returns the container's current instance and its task (nil if none).
func (c *Container) current() (inst *instance, task tasks.Task) {
	c.pod.do(func() {
		if inst = c.cur; inst != nil {
			task = inst.task
		}
	})
	return inst, task
}

// Signal sends a signal to the container's main process.
func (c *Container) Signal(ctx context.Context, sig syscall.Signal) error {
	_, task := c.current()
	if task == nil {
		return fmt.Errorf("container %q: no process: %w", c.spec.Name, ErrNotFound)
	}
	return task.Kill(c.pod.host.Ctx(ctx), sig, false)
}

// execCapture runs argv inside the container and returns its exit code and combined output (up
// to 1 MiB, see attempt.Capture): the hook.Execer of the container's hooks and exec probes (see
// target). If ctx ends first, the process is killed.
func (c *Container) execCapture(ctx context.Context, argv []string) (hook.ExecResult, error) {
	return attempt.Capture(ctx, c.exec, argv)
}

// exec runs argv inside the container's current instance with stdio connected to streams (see
// Pod.Exec) and returns its exit code. If ctx ends first, the process is killed.
func (c *Container) exec(ctx context.Context, argv []string, streams ExecIO) (int, error) {
	p := c.pod
	inst, task := c.current()
	if task == nil {
		return -1, fmt.Errorf("container %q: not running: %w", c.spec.Name, ErrNotFound)
	}
	if p.host.Disconnected() {
		// Fail at once (a probe's period then counts for nothing) rather than wait out its timeout.
		return -1, fmt.Errorf("exec in container %q: containerd does not answer: %w", c.spec.Name, errdefs.ErrUnavailable)
	}
	conn := p.conn()
	bg := context.WithoutCancel(p.host.Ctx(ctx))
	var pspec *specs.Process
	p.do(func() { pspec = inst.procSpec })
	if pspec == nil {
		var err error
		if pspec, err = attempt.ProcessSpec(ctx, bg, conn, inst.cg); err != nil {
			return -1, err
		}
		p.do(func() { inst.procSpec = pspec })
	}
	return attempt.Exec(ctx, bg, conn, c.spec.Name, task, *pspec, argv, streams, p.sandbox.FIFODir())
}

// resumeAttachCopy takes over the copy of an adopted, running interactive instance's output to
// its log and to attached clients, which its previous manager did (see
// attempt.ResumeAttachCopy), at its adoption.
func (i *instance) resumeAttachCopy(p *Worker) {
	if lg, ok := attempt.ResumeAttachCopy(p.sandbox.Dir(), i.id, i.logPath, p.host.Cfg.Logs, p.host.Closing, p.log); ok {
		i.log, i.streams = lg.Writer, lg.Streams
	}
}
