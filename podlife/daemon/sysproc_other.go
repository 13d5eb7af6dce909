//go:build !linux

package daemon

import "syscall"

// sysProcAttr returns nil: containerd with the runc shim runs on Linux only,
// and Start fails on the missing binary or shim elsewhere.
func sysProcAttr() *syscall.SysProcAttr { return nil }
