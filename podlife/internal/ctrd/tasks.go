package ctrd

import (
	"context"
	"syscall"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/cio"
	"github.com/opencontainers/runtime-spec/specs-go"
)

// Task is a container's task: its main process.
type Task struct {
	task client.Task
}

// Wait returns a channel that gets the process's exit; ctx ending sends an ExitStatus with
// ctx's error (the process may still run).
func (t *Task) Wait(ctx context.Context) (<-chan ExitStatus, error) { return t.task.Wait(ctx) }

// Start starts the process.
func (t *Task) Start(ctx context.Context) error { return t.task.Start(ctx) }

// Pid is the process's PID in the host's PID namespace.
func (t *Task) Pid() uint32 { return t.task.Pid() }

// Kill sends sig to the main process, or with all to every process of the container.
func (t *Task) Kill(ctx context.Context, sig syscall.Signal, all bool) error {
	if all {
		return t.task.Kill(ctx, sig, client.WithKillAll)
	}
	return t.task.Kill(ctx, sig)
}

// Status returns the task's status.
func (t *Task) Status(ctx context.Context) (Status, error) { return t.task.Status(ctx) }

// Delete deletes the task, killing its process if it still runs.
func (t *Task) Delete(ctx context.Context) error {
	_, err := t.task.Delete(ctx, client.WithProcessKill)
	return err
}

// Resize sets the size of the main process's terminal.
func (t *Task) Resize(ctx context.Context, w, h uint32) error { return t.task.Resize(ctx, w, h) }

// WaitOutput waits, at most timeout, until this process has copied all of the task's output
// (a task created here with FIFOs copied by this process); false if it timed out or there is
// nothing to wait for. A wait that times out is left to end with the task's deletion.
func (t *Task) WaitOutput(timeout time.Duration) bool {
	io := t.task.IO()
	if io == nil {
		return false
	}
	done := make(chan struct{})
	go func() {
		io.Wait()
		close(done)
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-done:
		return true
	case <-timer.C:
		return false
	}
}

// Exec creates the process id in the task with the process spec ps, its stdio made by creator.
// It is not started.
func (t *Task) Exec(ctx context.Context, id string, ps *specs.Process, creator cio.Creator) (*Process, error) {
	proc, err := t.task.Exec(ctx, id, ps, creator)
	if err != nil {
		return nil, err
	}
	return &Process{proc: proc}, nil
}

// Process is an extra process of a task (an exec).
type Process struct {
	proc client.Process
}

// Wait is Task.Wait's for the process.
func (p *Process) Wait(ctx context.Context) (<-chan ExitStatus, error) { return p.proc.Wait(ctx) }

// Start starts the process.
func (p *Process) Start(ctx context.Context) error { return p.proc.Start(ctx) }

// Kill sends sig to the process.
func (p *Process) Kill(ctx context.Context, sig syscall.Signal) error { return p.proc.Kill(ctx, sig) }

// Resize sets the size of its terminal.
func (p *Process) Resize(ctx context.Context, w, h uint32) error { return p.proc.Resize(ctx, w, h) }

// CloseStdin tells the shim to close the process's stdin.
func (p *Process) CloseStdin(ctx context.Context) error {
	return p.proc.CloseIO(ctx, client.WithStdinCloser)
}

// Delete deletes the process, killing it if it still runs.
func (p *Process) Delete(ctx context.Context) error {
	_, err := p.proc.Delete(ctx, client.WithProcessKill)
	return err
}

// IO is its stdio (nil if none).
func (p *Process) IO() cio.IO { return p.proc.IO() }
