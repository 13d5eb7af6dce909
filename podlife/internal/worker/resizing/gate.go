package resizing

import (
	"context"
	"sync"

	"github.com/podlife/podlife/podlife/internal/api"
)

// Gate runs a pod's resizes one at a time. The zero value has none in progress. Its mutex
// guards only the gate's own field, never the pod's state.
type Gate struct {
	mu   sync.Mutex
	busy chan struct{} // the resize in progress, closed when it ends; nil if none
}

// Begin waits for the resize in progress, if any, to end, then makes the caller's the resize in
// progress; end ends it. It fails with ctx's error if ctx ends first, or with api.ErrClosed
// once closed is (the pod's loop has ended).
func (g *Gate) Begin(ctx context.Context, closed <-chan struct{}) (end func(), err error) {
	for {
		select {
		case <-closed:
			return nil, api.ErrClosed
		default:
		}
		g.mu.Lock()
		busy := g.busy
		if busy == nil {
			mine := make(chan struct{})
			g.busy = mine
			g.mu.Unlock()
			return func() {
				g.mu.Lock()
				g.busy = nil
				g.mu.Unlock()
				close(mine)
			}, nil
		}
		g.mu.Unlock()
		select {
		case <-busy:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-closed:
		}
	}
}
