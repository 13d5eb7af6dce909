package conn

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/containerd/errdefs"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// When containerd goes away (it crashed, was killed or restarts), the containers keep running
// under their shims: only podlife's view of them is interrupted. The Runtime then records no exit
// it did not see, kills nothing and deletes nothing. It marks itself disconnected, tells every pod
// (ContainerdUnavailable), and reconnects with back-off (revive, then the client's own gRPC
// connection, which redials). Meanwhile each exit watcher asks its container's shim directly, so
// that an exit is reported with its real status and time. Once containerd answers again
// (ContainerdRecovered), every exit watcher loads its task again and waits on it again; the
// restart policy applies as usual. Calls that need containerd while it is away (a stop, a
// removal, a restart) wait for it; exec probes are skipped (their periods count for nothing);
// Start fails with an error wrapping ErrUnavailable.

// Told are those told of one outage: of its start (Unavailable), then of its end (Recovered).
// Each gets a message that names the address and the cause or the outage's length.
type Told interface {
	Unavailable(msg string)
	Recovered(msg string)
}

// Config is what a Watch is made of. Every field is required.
type Config struct {
	// Address is the containerd socket in use (asked when needed: the Runtime sets it once
	// connected).
	Address func() string
	// Revive makes sure a containerd answers at the address again (for the private containerd
	// of the state dir, starts it again); the error wraps errdefs.ErrUnavailable.
	Revive func(ctx context.Context) error
	// Healthy reports whether containerd answers a health check as serving (fail-fast).
	Healthy func(ctx context.Context) bool
	// Serving waits (bounded by ctx) until the client's connection serves again.
	Serving func(ctx context.Context) error
	// Affected returns those to tell of an outage that begins (the pods still supervised).
	Affected func() Told
	// Closing is closed when the Runtime closes; IsClosed reports whether it has.
	Closing  <-chan struct{}
	IsClosed func() bool
	// ErrClosed is the error of a wait cut short by the Runtime's Close.
	ErrClosed error
	// Initial and Max bound the back-off between attempts to reach containerd again;
	// ReviveTimeout bounds one attempt's revive (a start of the private containerd).
	Initial, Max, ReviveTimeout time.Duration
	Log                         *slog.Logger
}

// Watch is the state of the connection to containerd. A new Watch is connected.
type Watch struct {
	cfg Config

	mu       sync.Mutex
	down     bool
	up       chan struct{} // closed when containerd answers again; a new one per outage
	lost     chan struct{} // closed when an outage begins; a new one after each recovery (nil: none yet)
	since    time.Time     // when the outage was noticed
	affected Told          // told of the outage, to be told of the recovery
}

// New returns a connected Watch on cfg.
func New(cfg Config) *Watch {
	return &Watch{cfg: cfg}
}

// IsConnErr reports whether err says that containerd could not be reached (as opposed to an
// answer of containerd).
func IsConnErr(err error) bool {
	if err == nil {
		return false
	}
	return errdefs.IsUnavailable(err) || status.Code(err) == codes.Unavailable
}

// LostConn reports whether err is a lost connection to containerd that matters (ctx still live,
// runtime not closed); if so it starts the reconnection, once per outage. An Unavailable error
// while containerd answers a health check is containerd's own answer, not a lost connection
// (treating it as one would loop: reconnect at once, fail again).
func (w *Watch) LostConn(ctx context.Context, err error) bool {
	if !IsConnErr(err) || ctx.Err() != nil || w.cfg.IsClosed() {
		return false
	}
	if !w.Disconnected() && w.answers() {
		return false
	}
	w.Lost(err)
	return true
}

// answers reports whether containerd answers a health check as serving, without waiting for a
// connection that is down (a fail-fast call).
func (w *Watch) answers() bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return w.cfg.Healthy(ctx)
}

// Lost marks the runtime disconnected, tells those Config.Affected returns and starts the
// reconnection loop. Further calls during the same outage do nothing.
func (w *Watch) Lost(cause error) {
	told := w.cfg.Affected()
	w.mu.Lock()
	if w.down {
		w.mu.Unlock()
		return
	}
	w.down, w.up, w.since, w.affected = true, make(chan struct{}), time.Now(), told
	if w.lost == nil {
		w.lost = make(chan struct{})
	}
	close(w.lost)
	w.mu.Unlock()
	addr := w.cfg.Address()
	w.cfg.Log.Warn("containerd does not answer; reconnecting", "address", addr, "err", cause)
	told.Unavailable(fmt.Sprintf("containerd at %s does not answer (%v): reconnecting; the containers are left as they are", addr, cause))
	go w.reconnect()
}

// reconnect tries to reach containerd again, with back-off, until it answers or the runtime is
// closed.
func (w *Watch) reconnect() {
	delay := w.cfg.Initial
	timer := time.NewTimer(delay)
	defer timer.Stop()
	for attempt := 1; ; attempt++ {
		select {
		case <-w.cfg.Closing:
			return
		case <-timer.C:
		}
		err := w.tryConnect()
		if err == nil {
			w.restored(attempt)
			return
		}
		if attempt == 1 || attempt%10 == 0 {
			w.cfg.Log.Warn("containerd still unavailable", "address", w.cfg.Address(), "attempt", attempt, "err", err)
		} else {
			w.cfg.Log.Debug("containerd still unavailable", "attempt", attempt, "err", err)
		}
		delay = min(2*delay, w.cfg.Max)
		timer.Reset(delay)
	}
}

// tryConnect makes sure a containerd answers at the runtime's address (revive) and that the
// client's connection serves again. The client is kept: its gRPC connection redials by itself;
// it is only told to skip the rest of its own back-off.
func (w *Watch) tryConnect() error {
	// revive may start the private containerd: it gets the time a start may take, not one
	// attempt's. A start cut short kills the daemon it started, so a containerd slower to serve
	// than Max (a loaded host, many shims to reload) would be started and killed again and
	// again, never recovered.
	ctx, cancel := context.WithTimeout(context.Background(), w.cfg.ReviveTimeout)
	defer cancel()
	go func() {
		select {
		case <-w.cfg.Closing:
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := w.cfg.Revive(ctx); err != nil {
		return err
	}
	cctx, ccancel := context.WithTimeout(ctx, w.cfg.Max)
	defer ccancel()
	sctx, scancel := context.WithTimeout(cctx, 2*time.Second)
	defer scancel()
	return w.cfg.Serving(sctx)
}

// restored marks the runtime connected (new calls go ahead), tells those told of the outage
// that containerd is back, then wakes every call waiting for it (exit watchers take up their
// tasks again), so that a ContainerdRecovered event comes before what the watchers report and
// a caller acting on it finds the runtime connected.
func (w *Watch) restored(attempts int) {
	w.mu.Lock()
	told, since, up := w.affected, w.since, w.up
	w.down, w.affected, w.lost = false, nil, make(chan struct{})
	w.mu.Unlock()
	took := time.Since(since).Round(time.Millisecond)
	addr := w.cfg.Address()
	w.cfg.Log.Info("containerd answers again", "address", addr, "after", took, "attempts", attempts)
	told.Recovered(fmt.Sprintf("containerd at %s answers again after %v: following the containers again", addr, took))
	close(up)
}

// Disconnected reports whether the runtime is waiting for containerd to answer again.
func (w *Watch) Disconnected() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.down
}

// Up returns a channel closed once containerd is reachable (already closed if it is).
func (w *Watch) Up() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.down {
		return w.up
	}
	up := make(chan struct{})
	close(up)
	return up
}

// LostCh returns a channel closed once containerd is found unreachable (already closed if it
// is now).
func (w *Watch) LostCh() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.lost == nil {
		w.lost = make(chan struct{})
		if w.down {
			close(w.lost)
		}
	}
	return w.lost
}

// WaitConnected returns at once if containerd is reachable, else when it answers again. It
// fails if ctx ends first (the error wraps errdefs.ErrUnavailable and ctx's error) or the
// runtime is closed (Config.ErrClosed).
func (w *Watch) WaitConnected(ctx context.Context) error {
	select {
	case <-w.Up():
		return nil
	case <-w.cfg.Closing:
		return w.cfg.ErrClosed
	case <-ctx.Done():
		return fmt.Errorf("waiting for containerd: %w: %w", errdefs.ErrUnavailable, ctx.Err())
	}
}

// Retry runs call until it succeeds or fails for another reason than a lost connection to
// containerd; after such a loss it waits for containerd to answer again (bounded by ctx) and
// runs call again. Only use it for calls that are safe to repeat.
func (w *Watch) Retry(ctx context.Context, call func() error) error {
	for again := true; ; {
		err := call()
		if w.LostConn(ctx, err) {
			if werr := w.WaitConnected(ctx); werr != nil {
				return fmt.Errorf("%w (last error: %v)", werr, err)
			}
			continue
		}
		if again && IsConnErr(err) && ctx.Err() == nil && !w.cfg.IsClosed() {
			// The connection broke but containerd answers already (it came back before the
			// health check looked): once more, on the new connection.
			again = false
			continue
		}
		return err
	}
}

// WaitErr is the error of a wait cut short by ctx: ctx's error, which also wraps
// errdefs.ErrUnavailable if containerd is away (what the wait was waiting for did not happen
// because of it).
func (w *Watch) WaitErr(ctx context.Context) error {
	if w.Disconnected() {
		return fmt.Errorf("%w: %w", errdefs.ErrUnavailable, ctx.Err())
	}
	return ctx.Err()
}
