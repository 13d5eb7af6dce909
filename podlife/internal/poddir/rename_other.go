//go:build !linux

package poddir

import (
	"errors"
	"fmt"
)

// RenameNoReplace is not supported off Linux: it returns an error wrapping
// [errors.ErrUnsupported].
func RenameNoReplace(from, to string) error {
	return fmt.Errorf("rename %s to %s: %w", from, to, errors.ErrUnsupported)
}
