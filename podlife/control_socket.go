package podlife

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/podlife/podlife/podlife/internal/control"
	"github.com/podlife/podlife/podlife/internal/hostcheck"
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

// doControl does a request of the control socket on the pod's worker.
func (r *Runtime) doControl(req controlRequest) error {
	p, err := r.worker(req.Pod)
	if err != nil {
		return err
	}
	// The caller's wait may end; the stop or removal goes on as Pod.Stop's does.
	ctx := context.Background()
	switch req.Op {
	case "stop":
		var opts []StopOption
		if req.Grace != nil {
			opts = append(opts, WithGracePeriod(*req.Grace))
		}
		return p.Stop(ctx, resolveStop(opts).worker())
	case "remove":
		if req.Grace != nil {
			_ = p.Stop(ctx, resolveStop([]StopOption{WithGracePeriod(*req.Grace)}).worker())
		}
		return p.Remove(ctx)
	case "condition":
		c := req.Condition
		return p.SetCondition(c.Type, c.Status, c.Reason, c.Message)
	case "ephemeral":
		_, err := p.AddEphemeralContainer(ctx, req.Ephemeral.Spec())
		return err
	case "deadline":
		return p.SetActiveDeadline(*req.Deadline)
	}
	return fmt.Errorf("control: unknown op %q", req.Op)
}

// The client's side, for the paths on pods another process manages.
type (
	controlRequest   = control.Request
	conditionRequest = control.ConditionRequest
)

var (
	// errNoManager means no process answers on a pod's control socket: its manager is gone.
	errNoManager = control.ErrNoManager
	// errManagerLost means the manager went away before it answered (see control.ErrManagerLost).
	errManagerLost = control.ErrManagerLost
)

// ask sends req to the control socket at sock and waits for the answer (see control.Ask).
func ask(ctx context.Context, sock string, req controlRequest) error {
	return control.Ask(ctx, sock, req)
}

// answers reports whether a process serves the control socket.
func answers(sock string) bool { return control.Answers(sock) }

// addEphemeralRemote adds an ephemeral container to the named pod that this Runtime does not
// manage (see Pod.AddEphemeralContainer): its manager is asked through its control socket, and
// only the fields that can travel are sent. A pod without a live manager cannot get one: an
// error wrapping ErrNotFound.
func (r *Runtime) addEphemeralRemote(ctx context.Context, pod string, spec EphemeralContainerSpec) error {
	req, err := control.NewEphemeral(pod, spec)
	if err != nil {
		return err
	}
	rec, err := r.readRecord(pod)
	if err != nil {
		return err
	}
	err = ask(ctx, rec.Control, controlRequest{Op: "ephemeral", Pod: pod, Ephemeral: req})
	if errors.Is(err, errNoManager) {
		return fmt.Errorf("pod %q: no process manages it (pid %d is gone): %w", pod, rec.OwnerPID, ErrNotFound)
	}
	return err
}
