//go:build !linux

package volmount

import (
	"errors"
	"fmt"
)

// safeMount is not supported off Linux.
func safeMount(src mountSource, _ string) error {
	return fmt.Errorf("mount %s: %w", src.root, errors.ErrUnsupported)
}
