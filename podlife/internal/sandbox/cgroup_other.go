//go:build !linux

package sandbox

import (
	"fmt"

	"github.com/podlife/podlife/podlife/internal/api"
)

// CreateCgroup: pod cgroups are Linux only.
func CreateCgroup(path string, _ api.Resources) error {
	return fmt.Errorf("pod cgroup %s: %w", path, api.ErrNotSupported)
}
