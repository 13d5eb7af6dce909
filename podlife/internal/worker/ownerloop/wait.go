package ownerloop

import "context"

// WaitFor blocks until cond holds for what load returns, or ctx ends, and returns the last value
// it checked. load returns a value read from the last snapshot and a channel closed when a
// newer snapshot replaces that one: WaitFor wakes on changes, it does not poll.
func WaitFor[T any](ctx context.Context, load func() (T, <-chan struct{}), cond func(T) bool) (T, error) {
	for {
		v, changed := load()
		if cond(v) {
			return v, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return v, ctx.Err()
		}
	}
}
