package podlife_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/podlife/podlife/podlife"
)

// recorder is a StartFunc that logs begin/end of each start and can fail or block some.
type recorder struct {
	mu       sync.Mutex
	log      []string
	fail     map[string]bool
	inFlight atomic.Int32
	maxIn    atomic.Int32
	gate     chan struct{} // if set, every start waits for it
}

func (r *recorder) start(ctx context.Context, name string) error {
	n := r.inFlight.Add(1)
	defer r.inFlight.Add(-1)
	for {
		m := r.maxIn.Load()
		if n <= m || r.maxIn.CompareAndSwap(m, n) {
			break
		}
	}
	r.mu.Lock()
	r.log = append(r.log, "begin "+name)
	r.mu.Unlock()
	if r.gate != nil {
		<-r.gate
	}
	r.mu.Lock()
	r.log = append(r.log, "end "+name)
	r.mu.Unlock()
	if r.fail[name] {
		return errors.New(name + " failed")
	}
	return nil
}

func TestSequentialOrderAndContinueAfterFailure(t *testing.T) {
	r := &recorder{fail: map[string]bool{"b": true}}
	err := podlife.Sequential().Start(context.Background(), []string{"a", "b", "c"}, r.start)
	want := []string{"begin a", "end a", "begin b", "end b", "begin c", "end c"}
	if !slices.Equal(r.log, want) {
		t.Errorf("log %v, want %v (one at a time, in order)", r.log, want)
	}
	if err == nil || err.Error() != "b failed" {
		t.Errorf("err %v, want b's failure", err)
	}
}

func TestSequentialStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := &recorder{}
	calls := 0
	err := podlife.Sequential().Start(ctx, []string{"a", "b"}, func(ctx context.Context, name string) error {
		calls++
		cancel()
		return r.start(ctx, name)
	})
	if calls != 1 || !errors.Is(err, context.Canceled) {
		t.Errorf("calls %d err %v, want 1 call and context.Canceled", calls, err)
	}
}

func TestParallelRunsAtOnceUpToLimit(t *testing.T) {
	for _, tc := range []struct {
		limit, want int
	}{{0, 4}, {2, 2}, {1, 1}} {
		r := &recorder{gate: make(chan struct{})}
		done := make(chan error)
		go func() {
			done <- podlife.Parallel(tc.limit).Start(context.Background(), []string{"a", "b", "c", "d"}, r.start)
		}()
		// Wait until as many starts as allowed are in flight, then release them all.
		for int(r.inFlight.Load()) < tc.want {
			select {
			case err := <-done:
				t.Fatalf("returned early: %v", err)
			default:
			}
		}
		close(r.gate)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if got := int(r.maxIn.Load()); got != tc.want {
			t.Errorf("limit %d: %d starts in flight at most, want %d", tc.limit, got, tc.want)
		}
	}
}
