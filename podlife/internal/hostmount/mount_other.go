//go:build !linux

package hostmount

import (
	"errors"
	"fmt"
)

// MountTmpfs is not supported off Linux.
func MountTmpfs(dir, _ string) error {
	return fmt.Errorf("mount tmpfs on %s: %w", dir, errors.ErrUnsupported)
}

// UnmountLazy is not supported off Linux.
func UnmountLazy(path string) error {
	return fmt.Errorf("unmount %s: %w", path, errors.ErrUnsupported)
}

// UnmountUnder is not supported off Linux.
func UnmountUnder(dir string) error {
	return fmt.Errorf("unmount under %s: %w", dir, errors.ErrUnsupported)
}
