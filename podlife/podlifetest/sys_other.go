//go:build !linux

package podlifetest

import (
	"errors"
	"syscall"
)

// sysProcAttr returns nil: the parent-death signal is Linux only, and so
// is everything the package starts.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// unmountDetach fails: there are no containerd mounts to clean up outside
// Linux.
func unmountDetach(string) error { return errors.ErrUnsupported }
