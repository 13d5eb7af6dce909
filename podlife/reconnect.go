package podlife

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/containerd/errdefs"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/worker"
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

// ErrUnavailable: containerd does not answer. The Runtime reconnects by itself; errors of calls
// made meanwhile wrap it.
var ErrUnavailable = errdefs.ErrUnavailable

// Back-off between attempts to reach containerd again.
const (
	reconnectInitial = worker.ReconnectInitial
	reconnectMax     = worker.ReconnectMax
	// reviveTimeout bounds starting the private containerd again.
	reviveTimeout = daemon.DefaultStartTimeout
)

// connWatch is the state of the connection to containerd. The zero value is connected.
type connWatch struct {
	mu       sync.Mutex
	down     bool
	up       chan struct{} // closed when containerd answers again; a new one per outage
	lost     chan struct{} // closed when an outage begins; a new one after each recovery (nil: none yet)
	since    time.Time     // when the outage was noticed
	affected []*podWorker  // pods told of the outage, to be told of the recovery
}

// isConnErr reports whether err says that containerd could not be reached (as opposed to an
// answer of containerd).
func isConnErr(err error) bool {
	if err == nil {
		return false
	}
	return errdefs.IsUnavailable(err) || status.Code(err) == codes.Unavailable
}

// lostConn reports whether err is a lost connection to containerd that matters (ctx still live,
// runtime not closed); if so it starts the reconnection, once per outage. An Unavailable error
// while containerd answers a health check is containerd's own answer, not a lost connection
// (treating it as one would loop: reconnect at once, fail again).
func (r *Runtime) lostConn(ctx context.Context, err error) bool {
	if !isConnErr(err) || ctx.Err() != nil || r.isClosed() {
		return false
	}
	if !r.disconnected() && r.answers() {
		return false
	}
	r.connLost(err)
	return true
}

// answers reports whether containerd answers a health check as serving, without waiting for a
// connection that is down (a fail-fast call).
func (r *Runtime) answers() bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return r.ctrd.Healthy(ctx)
}

// connLost marks the runtime disconnected, tells every pod it supervises and starts the
// reconnection loop. Further calls during the same outage do nothing.
func (r *Runtime) connLost(cause error) {
	var pods []*podWorker
	for _, p := range r.workers() {
		select {
		case <-p.Stopped():
		default:
			pods = append(pods, p)
		}
	}
	w := &r.conn
	w.mu.Lock()
	if w.down {
		w.mu.Unlock()
		return
	}
	w.down, w.up, w.since, w.affected = true, make(chan struct{}), time.Now(), pods
	if w.lost == nil {
		w.lost = make(chan struct{})
	}
	close(w.lost)
	w.mu.Unlock()
	r.log.Warn("containerd does not answer; reconnecting", "address", r.address, "err", cause)
	msg := fmt.Sprintf("containerd at %s does not answer (%v): reconnecting; the containers are left as they are", r.address, cause)
	for _, p := range pods {
		p.Emit("", EventWarning, api.ReasonContainerdUnavailable, msg)
	}
	go r.reconnect()
}

// reconnect tries to reach containerd again, with back-off, until it answers or the runtime is
// closed.
func (r *Runtime) reconnect() {
	delay := reconnectInitial
	timer := time.NewTimer(delay)
	defer timer.Stop()
	for attempt := 1; ; attempt++ {
		select {
		case <-r.closing:
			return
		case <-timer.C:
		}
		err := r.tryConnect()
		if err == nil {
			r.connRestored(attempt)
			return
		}
		if attempt == 1 || attempt%10 == 0 {
			r.log.Warn("containerd still unavailable", "address", r.address, "attempt", attempt, "err", err)
		} else {
			r.log.Debug("containerd still unavailable", "attempt", attempt, "err", err)
		}
		delay = min(2*delay, reconnectMax)
		timer.Reset(delay)
	}
}

// tryConnect makes sure a containerd answers at the runtime's address (revive) and that the
// client's connection serves again. The client is kept: its gRPC connection redials by itself;
// it is only told to skip the rest of its own back-off.
func (r *Runtime) tryConnect() error {
	// revive may start the private containerd: it gets the time a start may take, not one
	// attempt's. A start cut short kills the daemon it started, so a containerd slower to serve
	// than reconnectMax (a loaded host, many shims to reload) would be started and killed again
	// and again, never recovered.
	ctx, cancel := context.WithTimeout(context.Background(), reviveTimeout)
	defer cancel()
	go func() {
		select {
		case <-r.closing:
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := r.revive(ctx); err != nil {
		return err
	}
	cctx, ccancel := context.WithTimeout(ctx, reconnectMax)
	defer ccancel()
	sctx, scancel := context.WithTimeout(cctx, 2*time.Second)
	defer scancel()
	return r.ctrd.Serving(sctx)
}

// connRestored marks the runtime connected (new calls go ahead), tells the pods told of the
// outage that containerd is back, then wakes every call waiting for it (exit watchers take up
// their tasks again), so that a ContainerdRecovered event comes before what the watchers report
// and a caller acting on it finds the runtime connected.
func (r *Runtime) connRestored(attempts int) {
	w := &r.conn
	w.mu.Lock()
	pods, since, up := w.affected, w.since, w.up
	w.down, w.affected, w.lost = false, nil, make(chan struct{})
	w.mu.Unlock()
	took := time.Since(since).Round(time.Millisecond)
	r.log.Info("containerd answers again", "address", r.address, "after", took, "attempts", attempts)
	msg := fmt.Sprintf("containerd at %s answers again after %v: following the containers again", r.address, took)
	for _, p := range pods {
		select {
		case <-p.Removed():
		default:
			p.Emit("", EventNormal, api.ReasonContainerdRecovered, msg)
		}
	}
	close(up)
}

// disconnected reports whether the runtime is waiting for containerd to answer again.
func (r *Runtime) disconnected() bool {
	r.conn.mu.Lock()
	defer r.conn.mu.Unlock()
	return r.conn.down
}

// connUp returns a channel closed once containerd is reachable (already closed if it is).
func (r *Runtime) connUp() <-chan struct{} {
	r.conn.mu.Lock()
	defer r.conn.mu.Unlock()
	if r.conn.down {
		return r.conn.up
	}
	up := make(chan struct{})
	close(up)
	return up
}

// connLostCh returns a channel closed once containerd is found unreachable (already closed if
// it is now).
func (r *Runtime) connLostCh() <-chan struct{} {
	r.conn.mu.Lock()
	defer r.conn.mu.Unlock()
	if r.conn.lost == nil {
		r.conn.lost = make(chan struct{})
		if r.conn.down {
			close(r.conn.lost)
		}
	}
	return r.conn.lost
}

// waitConnected returns at once if containerd is reachable, else when it answers again. It fails
// if ctx ends first (the error wraps ErrUnavailable and ctx's error) or the runtime is closed.
func (r *Runtime) waitConnected(ctx context.Context) error {
	select {
	case <-r.connUp():
		return nil
	case <-r.closing:
		return ErrClosed
	case <-ctx.Done():
		return fmt.Errorf("waiting for containerd: %w: %w", ErrUnavailable, ctx.Err())
	}
}

// retry runs call until it succeeds or fails for another reason than a lost connection to
// containerd; after such a loss it waits for containerd to answer again (bounded by ctx) and
// runs call again. Only use it for calls that are safe to repeat.
func (r *Runtime) retry(ctx context.Context, call func() error) error {
	for again := true; ; {
		err := call()
		if r.lostConn(ctx, err) {
			if werr := r.waitConnected(ctx); werr != nil {
				return fmt.Errorf("%w (last error: %v)", werr, err)
			}
			continue
		}
		if again && isConnErr(err) && ctx.Err() == nil && !r.isClosed() {
			// The connection broke but containerd answers already (it came back before the
			// health check looked): once more, on the new connection.
			again = false
			continue
		}
		return err
	}
}

// waitErr is the error of a wait cut short by ctx: ctx's error, which also wraps ErrUnavailable
// if containerd is away (what the wait was waiting for did not happen because of it).
func (r *Runtime) waitErr(ctx context.Context) error {
	if r.disconnected() {
		return fmt.Errorf("%w: %w", ErrUnavailable, ctx.Err())
	}
	return ctx.Err()
}
