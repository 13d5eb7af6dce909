//go:build !linux

package sandboxns

import (
	"errors"
	"fmt"
)

// Create is not supported off Linux: it returns an error wrapping
// [errors.ErrUnsupported].
func Create(dir string, kinds []Kind, hostname string) (map[Kind]string, error) {
	return nil, fmt.Errorf("sandboxns: pin namespaces under %s: %w", dir, errors.ErrUnsupported)
}

// Remove is not supported off Linux: it returns an error wrapping
// [errors.ErrUnsupported].
func Remove(dir string) error {
	return fmt.Errorf("sandboxns: unpin namespaces under %s: %w", dir, errors.ErrUnsupported)
}
