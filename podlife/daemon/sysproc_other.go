//go:build !linux

package daemon

import (
	"context"
	"errors"
	"syscall"
)

// sysProcAttr returns nil: containerd with the runc shim runs on Linux only,
// and Start fails on the missing binary or shim elsewhere.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// detachedSysProcAttr returns nil, as sysProcAttr does.
func detachedSysProcAttr() *syscall.SysProcAttr { return nil }

// peerPID is not implemented off Linux.
func peerPID(string) (int, error) { return 0, errors.ErrUnsupported }

// terminate is not implemented off Linux.
func terminate(context.Context, int, string) error { return errors.ErrUnsupported }

// keepFDsFromDaemon does nothing off Linux.
func keepFDsFromDaemon() {}
