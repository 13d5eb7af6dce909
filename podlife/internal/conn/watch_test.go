package conn

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/containerd/errdefs"
)

var errClosed = errors.New("closed")

// told records what a Watch tells of its outages.
type told struct {
	mu        sync.Mutex
	got       []string
	recovered chan struct{}
}

func (t *told) Unavailable(msg string) { t.add("unavailable") }
func (t *told) Recovered(msg string) {
	t.add("recovered")
	close(t.recovered)
}
func (t *told) add(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.got = append(t.got, s)
}
func (t *told) list() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.got...)
}

// fake is a containerd that answers once healthy is set and revive has failed failures times.
type fake struct {
	healthy  atomic.Bool
	revives  atomic.Int32
	failures int32
	closing  chan struct{}
	told     *told
}

func newWatch(f *fake) *Watch {
	f.closing = make(chan struct{})
	f.told = &told{recovered: make(chan struct{})}
	return New(Config{
		Address: func() string { return "/run/fake.sock" },
		Revive: func(ctx context.Context) error {
			if f.revives.Add(1) <= f.failures {
				return errdefs.ErrUnavailable
			}
			f.healthy.Store(true)
			return nil
		},
		Healthy:  func(ctx context.Context) bool { return f.healthy.Load() },
		Serving:  func(ctx context.Context) error { return nil },
		Affected: func() Told { return f.told },
		Closing:  f.closing,
		IsClosed: func() bool {
			select {
			case <-f.closing:
				return true
			default:
				return false
			}
		},
		ErrClosed: errClosed,
		Initial:   time.Millisecond, Max: 2 * time.Millisecond, ReviveTimeout: time.Minute,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
}

// TestOutageAndRecovery: a lost connection is noticed once, told once, and the recovery is
// told before the waiting calls go on.
func TestOutageAndRecovery(t *testing.T) {
	f := &fake{failures: 2}
	w := newWatch(f)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	select {
	case <-w.Up():
	default:
		t.Fatal("a new Watch is not connected")
	}
	if w.LostConn(ctx, errors.New("not found")) {
		t.Fatal("an answer of containerd taken for a lost connection")
	}
	f.healthy.Store(true)
	if w.LostConn(ctx, errdefs.ErrUnavailable) {
		t.Fatal("Unavailable while containerd answers a health check taken for a lost connection")
	}
	f.healthy.Store(false)
	lost := w.LostCh()
	if !w.LostConn(ctx, errdefs.ErrUnavailable) {
		t.Fatal("a lost connection not noticed")
	}
	w.Lost(errdefs.ErrUnavailable) // the same outage: nothing more
	<-lost
	if err := w.WaitConnected(ctx); err != nil {
		t.Fatalf("WaitConnected: %v", err)
	}
	if got := f.told.list(); len(got) != 2 || got[0] != "unavailable" || got[1] != "recovered" {
		t.Fatalf("told %v, want [unavailable recovered]", got)
	}
	if w.Disconnected() {
		t.Fatal("still disconnected after the recovery")
	}
	if n := f.revives.Load(); n != 3 {
		t.Errorf("%d revives, want 3 (two failures, then success)", n)
	}
}

// TestRetryAndClose: Retry runs a call again once containerd is back; a Close ends the waits.
func TestRetryAndClose(t *testing.T) {
	f := &fake{failures: 1}
	w := newWatch(f)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	calls := 0
	err := w.Retry(ctx, func() error {
		calls++
		if calls == 1 {
			return errdefs.ErrUnavailable
		}
		return nil
	})
	if err != nil || calls != 2 {
		t.Fatalf("Retry: %v after %d calls, want nil after 2", err, calls)
	}

	f2 := &fake{failures: 1 << 30}
	w2 := newWatch(f2)
	w2.Lost(errdefs.ErrUnavailable)
	short, scancel := context.WithCancel(ctx)
	scancel()
	if err := w2.WaitErr(short); !errors.Is(err, errdefs.ErrUnavailable) || !errors.Is(err, context.Canceled) {
		t.Errorf("WaitErr during an outage: %v, want ErrUnavailable and context.Canceled", err)
	}
	close(f2.closing)
	if err := w2.WaitConnected(ctx); !errors.Is(err, errClosed) {
		t.Errorf("WaitConnected after Close: %v, want ErrClosed", err)
	}
}
