package podlife

import (
	"os"
	"path/filepath"
	"time"

	"github.com/podlife/podlife/podlife/internal/control"
	"github.com/podlife/podlife/podlife/internal/hostcheck"
	"github.com/podlife/podlife/podlife/internal/remote"
)

// controlSocket is the Runtime's control socket (see package control): other processes ask
// through it to stop, remove, set a condition or a deadline on, or add an ephemeral container
// to a pod this Runtime manages.
type controlSocket struct{ srv *control.Server }

func newControl(r *Runtime) *controlSocket {
	sock := filepath.Join(r.cfg.StateDir, "control", control.SocketName(os.Getpid(), newID()[:8]))
	if len(sock) > 107 {
		sock = "" // too long for a unix socket address: other processes cannot reach our pods
	}
	return &controlSocket{control.New(control.Config{
		Socket: sock, Log: r.log, Do: r.doControl, SecureDir: hostcheck.SecureDir, Alive: hostcheck.ProcessAlive,
		Checks: control.Checks{
			Condition: validateCondition,
			Deadline:  func(pod string, d time.Duration) error { return checkDeadlineUpdate(pod, nil, d) },
		},
	})}
}

// path is the socket's path, "" if the runtime has none.
func (c *controlSocket) path() string { return c.srv.Path() }

// listen starts serving on first use (see control.Server.Listen).
func (c *controlSocket) listen() { c.srv.Listen() }

// close stops serving and waits for requests in flight.
func (c *controlSocket) close() { c.srv.Close() }

// doControl does a request of the control socket on the pod's worker (see remote.Do).
func (r *Runtime) doControl(req control.Request) error {
	p, err := r.table.Get(req.Pod)
	if err != nil {
		return err
	}
	return remote.Do(p, req)
}
