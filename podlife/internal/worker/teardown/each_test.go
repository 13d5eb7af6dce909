package teardown

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
)

// Each runs f on every element and joins the errors in the elements' order.
func TestEach(t *testing.T) {
	var n atomic.Int32
	e1, e3 := errors.New("one"), errors.New("three")
	err := Each([]int{1, 2, 3}, func(i int) error {
		n.Add(1)
		return map[int]error{1: e1, 3: e3}[i]
	})
	if n.Load() != 3 || !errors.Is(err, e1) || !errors.Is(err, e3) || err.Error() != "one\nthree" {
		t.Errorf("Each: %d calls, %v", n.Load(), err)
	}
	if err := Each(nil, func(int) error { return e1 }); err != nil {
		t.Errorf("Each of none: %v", err)
	}
}

// A sidecar outlives the sidecars after it and every app container, not the init containers
// nor the sidecars before it.
func TestOutlived(t *testing.T) {
	inits := []string{"s1", "init", "s2", "s3"}
	side := func(c string) bool { return c[0] == 's' }
	apps := []string{"a", "b"}
	for sidecar, want := range map[string][]string{"s1": {"s2", "s3", "a", "b"}, "s2": {"s3", "a", "b"}, "s3": {"a", "b"}} {
		if got := Outlived(sidecar, inits, side, apps); !slices.Equal(got, want) {
			t.Errorf("Outlived(%s) = %v, want %v", sidecar, got, want)
		}
	}
}

// AwaitEnd returns at once when the end is over (even if closed), fails at once when closed,
// else starts the end and waits for it or for ctx.
func TestAwaitEnd(t *testing.T) {
	closed := errors.New("closed")
	ctxErr := func(ctx context.Context) error { return ctx.Err() }
	over := make(chan struct{})
	close(over)
	never := func() { t.Error("started an end that is over") }
	if err := AwaitEnd(context.Background(), over, closed, never, ctxErr); err != nil {
		t.Errorf("over: %v", err)
	}
	if err := AwaitEnd(context.Background(), make(chan struct{}), closed, func() { t.Error("started when closed") }, ctxErr); err != closed {
		t.Errorf("closed: %v", err)
	}
	done := make(chan struct{})
	if err := AwaitEnd(context.Background(), done, nil, func() { close(done) }, ctxErr); err != nil {
		t.Errorf("started: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := AwaitEnd(ctx, make(chan struct{}), nil, func() {}, ctxErr); !errors.Is(err, context.Canceled) {
		t.Errorf("ctx ended: %v", err)
	}
}
