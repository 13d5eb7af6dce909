package cri

import "syscall"

// criSysProcAttr puts the CRI containerd in its own process group and stops it if the bench
// dies without closing it.
func criSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
