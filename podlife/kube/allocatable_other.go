//go:build !linux

package kube

// rootFSSize is unknown off Linux.
func rootFSSize() (int64, bool) { return 0, false }
