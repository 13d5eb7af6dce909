package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// detachedSysProcAttr starts a daemon that belongs to no process: a session
// of its own (a terminal's signals do not reach it) and no parent-death
// signal.
func detachedSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

// peerPID returns the PID of the process that listens on the unix socket,
// as the kernel recorded it (SO_PEERCRED).
func peerPID(socket string) (int, error) {
	conn, err := net.DialTimeout("unix", socket, probeTimeout)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	raw, err := conn.(*net.UnixConn).SyscallConn()
	if err != nil {
		return 0, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return 0, err
	}
	if credErr != nil {
		return 0, fmt.Errorf("SO_PEERCRED: %w", credErr)
	}
	return int(cred.Pid), nil
}

// terminate sends SIGTERM to pid, which must be a containerd started with
// --config config, then SIGKILL if it has not exited when ctx is done, and
// waits until it has exited. It works on a pidfd, so that a PID reused
// meanwhile is never signalled. A process that is already gone is fine.
func terminate(ctx context.Context, pid int, config string) error {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pidfd_open: %w", err)
	}
	defer unix.Close(fd)
	// From here on fd names this very process, whatever happens to the PID.
	if !isDaemonOf(pid, config) {
		if exitedFD(fd, 0) {
			return nil
		}
		return fmt.Errorf("pid %d is not a containerd started with --config %s", pid, config)
	}
	if err := unix.PidfdSendSignal(fd, unix.SIGTERM, nil, 0); err != nil && !errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("SIGTERM: %w", err)
	}
	if waitFD(ctx, fd) {
		return nil
	}
	if err := unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0); err != nil && !errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("SIGKILL: %w", err)
	}
	kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), killWait)
	defer cancel()
	if !waitFD(kctx, fd) {
		return fmt.Errorf("pid %d still runs %v after SIGKILL", pid, killWait)
	}
	return nil
}

// waitFD waits until the process of the pidfd has exited (it is then
// readable) or ctx is done, and reports whether it has exited.
func waitFD(ctx context.Context, fd int) bool {
	for {
		if exitedFD(fd, 100*time.Millisecond) {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
	}
}

// exitedFD polls the pidfd for at most timeout.
func exitedFD(fd int, timeout time.Duration) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, int(timeout/time.Millisecond))
	return err == nil && n > 0
}

// keepFDsFromDaemon marks the file descriptors this process inherited without close-on-exec
// (everything Go opens itself has it) as close-on-exec, so that a detached daemon started next
// keeps none of them: a pipe it held would keep whatever reads the starter's output waiting
// for end-of-file as long as the daemon runs. Only later children of this process notice the
// change, and they receive their files explicitly (exec.Cmd, os.ProcAttr.Files).
func keepFDsFromDaemon() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil && flags&unix.FD_CLOEXEC == 0 {
			syscall.CloseOnExec(fd)
		}
	}
}
