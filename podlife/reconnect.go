package podlife

import (
	"context"

	"github.com/containerd/errdefs"

	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/conn"
	"github.com/podlife/podlife/podlife/internal/worker/attempt"
)

// When containerd goes away (it crashed, was killed or restarts), the containers keep running
// under their shims: only podlife's view of them is interrupted. The Runtime marks itself
// disconnected, tells every pod (ContainerdUnavailable), and reconnects with back-off; once
// containerd answers again it tells them (ContainerdRecovered). Package conn owns that state
// and loop; the Runtime makes its Watch (newConn) and gives it to its workers.

// ErrUnavailable: containerd does not answer. The Runtime reconnects by itself; errors of calls
// made meanwhile wrap it.
var ErrUnavailable = errdefs.ErrUnavailable

// Back-off between attempts to reach containerd again.
const (
	reconnectInitial = attempt.ReconnectInitial
	reconnectMax     = attempt.ReconnectMax
	// reviveTimeout bounds starting the private containerd again.
	reviveTimeout = daemon.DefaultStartTimeout
)

// newConn returns the Watch of r's connection to containerd: it revives r's containerd and
// tells r's supervised pods of an outage and of the recovery.
func newConn(r *Runtime) *conn.Watch {
	return conn.New(conn.Config{
		Address:   func() string { return r.address },
		Revive:    r.revive,
		Healthy:   func(ctx context.Context) bool { return r.ctrd.Healthy(ctx) },
		Serving:   func(ctx context.Context) error { return r.ctrd.Serving(ctx) },
		Affected:  r.outageTold,
		Closing:   r.closing,
		IsClosed:  r.isClosed,
		ErrClosed: ErrClosed,
		Initial:   reconnectInitial, Max: reconnectMax, ReviveTimeout: reviveTimeout,
		Log: r.log,
	})
}

// outageTold returns the pods to tell of an outage that begins: those not stopped.
func (r *Runtime) outageTold() conn.Told {
	var pods toldPods
	for _, p := range r.table.List() {
		select {
		case <-p.Stopped():
		default:
			pods = append(pods, p)
		}
	}
	return pods
}

// toldPods are the pods told of one outage.
type toldPods []*podWorker

// Unavailable tells each pod that containerd went away.
func (t toldPods) Unavailable(msg string) {
	for _, p := range t {
		p.Emit("", EventWarning, api.ReasonContainerdUnavailable, msg)
	}
}

// Recovered tells each pod not removed meanwhile that containerd answers again.
func (t toldPods) Recovered(msg string) {
	for _, p := range t {
		select {
		case <-p.Removed():
		default:
			p.Emit("", EventNormal, api.ReasonContainerdRecovered, msg)
		}
	}
}
