package resizing

import (
	"context"

	"github.com/podlife/podlife/podlife/internal/api"
)

// Gate runs a pod's resizes one at a time: a semaphore of one, a channel, no lock. Make it with
// NewGate.
type Gate struct {
	sem chan struct{} // holds a token while a resize is in progress
}

// NewGate returns a Gate with no resize in progress.
func NewGate() Gate { return Gate{sem: make(chan struct{}, 1)} }

// Begin waits for the resize in progress, if any, to end, then makes the caller's the resize in
// progress; end ends it. It fails with ctx's error if ctx ends first, or with api.ErrClosed
// once closed is (the pod's loop has ended).
func (g Gate) Begin(ctx context.Context, closed <-chan struct{}) (end func(), err error) {
	select {
	case <-closed:
		return nil, api.ErrClosed
	default:
	}
	select {
	case g.sem <- struct{}{}:
		return func() { <-g.sem }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-closed:
		return nil, api.ErrClosed
	}
}
