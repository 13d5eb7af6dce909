//go:build !linux

package podlife

import "fmt"

// createCgroup: pod cgroups are Linux only.
func createCgroup(path string, _ Resources) error {
	return fmt.Errorf("pod cgroup %s: %w", path, ErrNotSupported)
}
