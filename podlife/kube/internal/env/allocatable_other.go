//go:build !linux

package env

// rootFSSize is unknown off Linux.
func rootFSSize() (int64, bool) { return 0, false }
