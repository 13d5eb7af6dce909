package podlife

import (
	"context"
	"fmt"
	"sync"
	"syscall"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/cio"

	"github.com/podlife/podlife/hook"
)

// current returns the container's current instance and its task (nil if none).
func (c *Container) current() (*instance, client.Task) {
	c.pod.mu.Lock()
	defer c.pod.mu.Unlock()
	if c.cur == nil {
		return nil, nil
	}
	return c.cur, c.cur.task
}

// Signal sends a signal to the container's main process.
func (c *Container) Signal(ctx context.Context, sig syscall.Signal) error {
	_, task := c.current()
	if task == nil {
		return fmt.Errorf("container %q: no process: %w", c.spec.Name, ErrNotFound)
	}
	return task.Kill(c.pod.rt.ctx(ctx), sig)
}

// Exec runs argv inside the container and returns its exit code and combined output (up to 1 MiB).
// If ctx ends first, the process is killed. Container satisfies hook.Execer.
func (c *Container) Exec(ctx context.Context, argv []string) (hook.ExecResult, error) {
	p := c.pod
	inst, task := c.current()
	if task == nil {
		return hook.ExecResult{}, fmt.Errorf("container %q: not running: %w", c.spec.Name, ErrNotFound)
	}
	bg := context.WithoutCancel(p.rt.ctx(ctx))
	p.mu.Lock()
	pspec := inst.procSpec
	p.mu.Unlock()
	if pspec == nil {
		spec, err := inst.ctr.Spec(bg)
		if err != nil {
			return hook.ExecResult{}, err
		}
		pspec = spec.Process
		p.mu.Lock()
		inst.procSpec = pspec
		p.mu.Unlock()
	}
	ps := *pspec
	ps.Args = argv
	ps.Terminal = false
	out := &cappedBuffer{max: 1 << 20}
	proc, err := task.Exec(bg, "exec-"+newID()[:12], &ps, cio.NewCreator(cio.WithStreams(nil, out, out), p.sandbox.fifoDir()))
	if err != nil {
		return hook.ExecResult{}, fmt.Errorf("exec in container %q: %w", c.spec.Name, err)
	}
	defer proc.Delete(bg, client.WithProcessKill) //nolint:errcheck
	statusC, err := proc.Wait(bg)
	if err != nil {
		return hook.ExecResult{}, err
	}
	if err := proc.Start(bg); err != nil {
		return hook.ExecResult{}, fmt.Errorf("exec in container %q: %w", c.spec.Name, err)
	}
	select {
	case st := <-statusC:
		code, _, err := st.Result()
		if err != nil {
			return hook.ExecResult{}, err
		}
		proc.IO().Wait()
		return hook.ExecResult{ExitCode: int(code), Output: out.Bytes()}, nil
	case <-ctx.Done():
		_ = proc.Kill(bg, syscall.SIGKILL)
		return hook.ExecResult{ExitCode: -1, Output: out.Bytes()}, ctx.Err()
	}
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
