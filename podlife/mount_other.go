//go:build !linux

package podlife

import (
	"errors"
	"fmt"
)

// mountTmpfs is not supported off Linux.
func mountTmpfs(dir, _ string) error {
	return fmt.Errorf("mount tmpfs on %s: %w", dir, errors.ErrUnsupported)
}

// unmountLazy is not supported off Linux.
func unmountLazy(path string) error {
	return fmt.Errorf("unmount %s: %w", path, errors.ErrUnsupported)
}

// unmountUnder is not supported off Linux.
func unmountUnder(dir string) error {
	return fmt.Errorf("unmount under %s: %w", dir, errors.ErrUnsupported)
}
