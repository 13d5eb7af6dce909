//go:build !linux

package cni

import (
	"errors"
	"fmt"
)

// checkNetNS always fails off Linux: there are no network namespaces to
// attach.
func checkNetNS(path string) error {
	return fmt.Errorf("network namespace %q: %w", path, errors.ErrUnsupported)
}
