package volumes

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// GetObject calls get, again while the API server answers Forbidden, for up to wait.
func GetObject[T any](ctx context.Context, wait time.Duration, get func(context.Context) (T, error)) (T, error) {
	deadline := time.Now().Add(wait)
	delay := 50 * time.Millisecond
	for {
		obj, err := get(ctx)
		if err == nil || !apierrors.IsForbidden(err) || time.Now().Add(delay).After(deadline) {
			return obj, err
		}
		select {
		case <-ctx.Done():
			return obj, err
		case <-time.After(delay):
		}
		delay = min(2*delay, time.Second)
	}
}
