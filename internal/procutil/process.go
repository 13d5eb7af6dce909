package procutil

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// Process is a child started by [Start].
type Process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once the child has exited and was reaped
	err  error         // the result of cmd.Wait, valid after done
}

// Start starts cmd, with the SysProcAttr it has, on an OS thread that stays
// locked until the child has exited (see the package documentation), and
// waits for the child on that thread. The error is the one of
// [exec.Cmd.Start], returned as is.
func Start(cmd *exec.Cmd) (*Process, error) {
	p := &Process{cmd: cmd, done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		p.err = cmd.Wait()
		close(p.done)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}

// Pid returns the child's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done returns a channel that is closed once the child has exited and has
// been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err returns the result of waiting for the child (see [exec.Cmd.Wait]), such
// as an [*exec.ExitError], once Done is closed, and nil before.
func (p *Process) Err() error {
	select {
	case <-p.done:
		return p.err
	default:
		return nil
	}
}

// Signal sends sig to the child, and only to the child (not to its process
// group). Once the child has been reaped it sends nothing and returns
// [os.ErrProcessDone], so that a reused process id is never signalled.
func (p *Process) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// Stop sends SIGTERM to the child, then SIGKILL if it has not exited after
// grace, and returns once it has been reaped. Errors of the signals (a child
// that already exited) are ignored.
func (p *Process) Stop(grace time.Duration) {
	_ = p.Signal(syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
		return
	case <-t.C:
	}
	_ = p.Signal(syscall.SIGKILL)
	<-p.done
}
