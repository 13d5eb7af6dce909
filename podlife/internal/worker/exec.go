package worker

import (
	"github.com/containerd/errdefs"
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"fmt"
	"sync"
	"syscall"

	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// current returns the container's current instance and its task (nil if none).
func (c *Container) current() (*instance, tasks.Task) {
	var inst *instance
	var task tasks.Task
	c.pod.do(func() {
		if c.cur != nil {
			inst, task = c.cur, c.cur.task
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
	return task.Kill(c.pod.rt.Ctx(ctx), sig, false)
}

// execCapture runs argv inside the container and returns its exit code and combined output (up
// to 1 MiB): the hook.Execer of the container's hooks and exec probes (see target). If ctx ends
// first, the process is killed.
func (c *Container) execCapture(ctx context.Context, argv []string) (hook.ExecResult, error) {
	out := &cappedBuffer{max: 1 << 20}
	code, err := c.exec(ctx, argv, ExecIO{Stdout: out, Stderr: out})
	switch {
	case err == nil:
		return hook.ExecResult{ExitCode: code, Output: out.Bytes()}, nil
	case ctx.Err() != nil:
		return hook.ExecResult{ExitCode: -1, Output: out.Bytes()}, err
	}
	return hook.ExecResult{}, err
}

// exec runs argv inside the container's current instance with stdio connected to streams (see
// Pod.Exec) and returns its exit code. If ctx ends first, the process is killed.
func (c *Container) exec(ctx context.Context, argv []string, streams ExecIO) (int, error) {
	p := c.pod
	inst, task := c.current()
	if task == nil {
		return -1, fmt.Errorf("container %q: not running: %w", c.spec.Name, ErrNotFound)
	}
	if p.rt.Disconnected() {
		// Fail at once (a probe's period then counts for nothing) rather than wait out its timeout.
		return -1, fmt.Errorf("exec in container %q: containerd does not answer: %w", c.spec.Name, errdefs.ErrUnavailable)
	}
	bg := context.WithoutCancel(p.rt.Ctx(ctx))
	var pspec *specs.Process
	p.do(func() { pspec = inst.procSpec })
	if pspec == nil {
		ps, err := inst.cg.ProcessSpec(bg)
		if err != nil {
			if p.rt.LostConn(ctx, err) {
				err = fmt.Errorf("%w: %w", errdefs.ErrUnavailable, err)
			}
			return -1, err
		}
		pspec = ps
		p.do(func() { inst.procSpec = pspec })
	}
	code, err := task.Exec(ctx, bg, *pspec, argv, streams, p.sandbox.FIFODir())
	switch {
	case err == nil:
		return code, nil
	case ctx.Err() != nil:
		return -1, err
	case p.rt.LostConn(ctx, err):
		return -1, fmt.Errorf("exec in container %q: %w: %w", c.spec.Name, errdefs.ErrUnavailable, err)
	}
	return -1, fmt.Errorf("exec in container %q: %w", c.spec.Name, err)
}

// cappedBuffer is a concurrency-safe buffer that keeps the first max bytes.
type cappedBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.max - len(b.buf); room > 0 {
		if len(p) > room {
			b.buf = append(b.buf, p[:room]...)
		} else {
			b.buf = append(b.buf, p...)
		}
	}
	return len(p), nil
}

func (b *cappedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf...)
}
