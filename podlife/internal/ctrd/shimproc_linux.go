package ctrd

import (
	"context"
	"errors"
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// ShimProcess is the process of a shim, held by a pidfd (a pid reused meanwhile is not
// mistaken for it). A runc create the shim runs is its child and dies with it (runc's parent
// death signal): once the shim is gone, no create of its tasks is still in flight.
type ShimProcess struct {
	fd int
}

// OpenShim finds the process serving on the shim socket (its peer credentials) and holds it.
// It returns nil, nil when nothing serves there.
func OpenShim(socket string) (*ShimProcess, error) {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return nil, nil // no shim: nothing left to wait for
	}
	defer conn.Close()
	raw, err := conn.(*net.UnixConn).SyscallConn()
	if err != nil {
		return nil, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return nil, err
	}
	if credErr != nil {
		return nil, fmt.Errorf("shim %s: SO_PEERCRED: %w", socket, credErr)
	}
	fd, err := unix.PidfdOpen(int(cred.Pid), 0)
	if errors.Is(err, unix.ESRCH) {
		return nil, nil // gone already
	}
	if err != nil {
		return nil, fmt.Errorf("shim %s: pidfd of pid %d: %w", socket, cred.Pid, err)
	}
	return &ShimProcess{fd: fd}, nil
}

// Wait returns once the shim process has exited, or with ctx's error.
func (s *ShimProcess) Wait(ctx context.Context) error {
	for {
		fds := []unix.PollFd{{Fd: int32(s.fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 100) // ms: a bound on each wait, to look at ctx
		if err != nil && !errors.Is(err, unix.EINTR) {
			return fmt.Errorf("wait for the shim: %w", err)
		}
		if n > 0 {
			return nil // the pidfd is readable: the process exited
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// Close releases the pidfd.
func (s *ShimProcess) Close() error { return unix.Close(s.fd) }
