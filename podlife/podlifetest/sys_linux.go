package podlifetest

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// sysProcAttr puts a child in a process group of its own, so signals sent
// to ours do not reach it, and has the kernel kill it if we die first.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// unmountDetach lazily unmounts the mount at path.
func unmountDetach(path string) error {
	return unix.Unmount(path, unix.MNT_DETACH)
}
