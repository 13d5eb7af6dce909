package teardown

import "context"

// AwaitEnd starts one of a pod's ends (its stop, its removal) unless it is over (done closed),
// and waits for it: nil once done is closed; closed at once, if not nil (the Runtime detached
// from the pod: the end is another's); ctxErr(ctx) if ctx ends first (the end goes on).
func AwaitEnd(ctx context.Context, done <-chan struct{}, closed error, start func(), ctxErr func(context.Context) error) error {
	select {
	case <-done:
		return nil
	default:
	}
	if closed != nil {
		return closed
	}
	start()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctxErr(ctx)
	}
}
