//go:build !linux

package hostmount

import "os"

// RemoveTree is os.RemoveAll off Linux, where podlife mounts nothing (see mount_other.go).
func RemoveTree(path string) error { return os.RemoveAll(path) }
