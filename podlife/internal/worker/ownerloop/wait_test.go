package ownerloop

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// WaitFor wakes on each newer snapshot until its condition holds, and returns the last value it
// checked when its context ends.
func TestWaitFor(t *testing.T) {
	type snap struct {
		v    int
		next chan struct{}
	}
	var mu sync.Mutex
	cur := &snap{next: make(chan struct{})}
	load := func() (int, <-chan struct{}) {
		mu.Lock()
		defer mu.Unlock()
		return cur.v, cur.next
	}
	publish := func(v int) {
		mu.Lock()
		old := cur
		cur = &snap{v: v, next: make(chan struct{})}
		mu.Unlock()
		close(old.next)
	}
	got := make(chan int, 1)
	go func() {
		v, _ := WaitFor(context.Background(), load, func(v int) bool { return v == 2 })
		got <- v
	}()
	publish(1)
	publish(2)
	select {
	case v := <-got:
		if v != 2 {
			t.Errorf("WaitFor = %d, want 2", v)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("WaitFor did not wake on the newer snapshots")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if v, err := WaitFor(ctx, load, func(int) bool { return false }); v != 2 || !errors.Is(err, context.Canceled) {
		t.Errorf("WaitFor past its context = %d, %v; want 2, context.Canceled", v, err)
	}
}
