//go:build !linux

package ctrd

import "context"

// ShimProcess is the process of a shim (Linux only: a pidfd).
type ShimProcess struct{}

// FindShims cannot hold a process off Linux: it finds none.
func FindShims(string, []string) []*ShimProcess { return nil }

// PID is 0: no process is held.
func (*ShimProcess) PID() int { return 0 }

// ID is "": no process is held.
func (*ShimProcess) ID() string { return "" }

// Wait returns at once.
func (*ShimProcess) Wait(context.Context) error { return nil }

// Exited reports true: there is no process held.
func (*ShimProcess) Exited() bool { return true }

// Kill does nothing: there is no process held.
func (*ShimProcess) Kill() error { return nil }

// Close does nothing.
func (*ShimProcess) Close() error { return nil }
