package podlifetest

import (
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// process is a started child and the result of waiting for it.
type process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once the child has exited and was reaped
	err  error         // the result of cmd.Wait, valid after done
}

// startProcess starts cmd with sysProcAttr (its own process group, and
// killed by the kernel if this process dies first). The parent-death signal
// fires when the forking thread ends, so cmd is started on a thread locked
// until the child exits.
func startProcess(cmd *exec.Cmd) (*process, error) {
	cmd.SysProcAttr = sysProcAttr()
	p := &process{cmd: cmd, done: make(chan struct{})}
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

// exited reports whether the child has exited.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM, then SIGKILL if the child has not exited after
// grace, and waits for it. Only the child's own PID is signalled, and not
// after it was reaped.
func (p *process) stop(grace time.Duration) {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
		return
	case <-t.C:
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}
