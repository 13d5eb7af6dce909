//go:build !linux

package execgate

import (
	"errors"
	"os"
)

// unread is not known off Linux (podlife runs pods on Linux only).
func unread(*os.File) (int, error) { return 0, errors.New("not supported") }
