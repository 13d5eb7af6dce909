package daemon

import "syscall"

// sysProcAttr puts the daemon in a process group of its own, so signals
// sent to ours (a terminal's ^C) do not reach it, and has the kernel send it
// SIGTERM if we die without stopping it. SIGTERM rather than SIGKILL lets
// containerd close its database and remove its sockets; shims are separate
// processes and are not affected either way.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
