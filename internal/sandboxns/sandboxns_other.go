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

// PinProcess is not supported off Linux: it returns an error wrapping
// [errors.ErrUnsupported].
func PinProcess(dir string, k Kind, pid int) (string, error) {
	return "", fmt.Errorf("sandboxns: pin the %s namespace of process %d under %s: %w", k, pid, dir, errors.ErrUnsupported)
}

// SetHostname is not supported off Linux: it returns an error wrapping
// [errors.ErrUnsupported].
func SetHostname(path, hostname string) error {
	return fmt.Errorf("sandboxns: set hostname %q in %s: %w", hostname, path, errors.ErrUnsupported)
}

// Pinned is not supported off Linux: it returns an error wrapping [errors.ErrUnsupported].
func Pinned(dir string) (pinned, mounted bool, err error) {
	return false, false, fmt.Errorf("sandboxns: the pins under %s: %w", dir, errors.ErrUnsupported)
}
