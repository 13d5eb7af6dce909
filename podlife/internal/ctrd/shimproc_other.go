//go:build !linux

package ctrd

import "context"

// ShimProcess is the process of a shim (Linux only: a pidfd).
type ShimProcess struct{}

// OpenShim cannot hold a process off Linux: it finds none.
func OpenShim(string) (*ShimProcess, error) { return nil, nil }

// Wait returns at once.
func (*ShimProcess) Wait(context.Context) error { return nil }

// Close does nothing.
func (*ShimProcess) Close() error { return nil }
