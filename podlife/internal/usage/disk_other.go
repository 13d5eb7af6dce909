//go:build !linux

package usage

import (
	"context"
	"errors"
)

// Disk is the space the files under root take: on other systems than Linux, an error wrapping
// errors.ErrUnsupported.
func Disk(context.Context, string) (uint64, error) { return 0, errors.ErrUnsupported }
