package daemon

import (
	"os/exec"
	"runtime"
)

// process is a started child and the result of waiting for it.
type process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once the child has exited and was reaped
	err  error         // the result of cmd.Wait, valid after done
}

// startProcess starts cmd on an OS thread that stays locked until the
// child exits. The parent-death signal (see sysProcAttr) fires when the
// thread that forked the child ends, not the process, so the thread must
// outlive the child.
func startProcess(cmd *exec.Cmd) (*process, error) {
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
