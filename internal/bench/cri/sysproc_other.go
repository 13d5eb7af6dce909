//go:build !linux

package cri

import "syscall"

// criSysProcAttr puts the CRI containerd in its own process group.
func criSysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
