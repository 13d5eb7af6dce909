//go:build !linux

package podlife

import "os"

// removeTree is os.RemoveAll off Linux, where podlife mounts nothing (see mount_other.go).
func removeTree(path string) error { return os.RemoveAll(path) }
