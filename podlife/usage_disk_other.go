//go:build !linux

package podlife

import (
	"context"
	"errors"
)

func diskUsage(context.Context, string) (uint64, error) { return 0, errors.ErrUnsupported }
