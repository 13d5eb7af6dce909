package podlife

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/podlife/podlife/podlife/internal/peercred"
)

// control is a Runtime's control socket: another process asks through it to stop or remove a
// pod this Runtime manages (a Pod handle of another Runtime: Stop, Remove, SetCondition,
// AddEphemeralContainer, SetActiveDeadline), so that the pod is stopped the
// way its manager would (preStop hooks, grace period, no restart racing the stop). It listens
// on StateDir/control/<pid>-<n>.sock (n numbers the process's Runtimes: each has its own pods),
// in a directory only its owner can enter, from the first pod on.
//
// Only root and the socket's owner (this process's user) are served: each connection's peer is
// checked with SO_PEERCRED, so a socket made reachable by mistake (a looser mode on its
// directory) still serves no other user. A request is one line of JSON of at most
// maxControlRequest bytes.
type control struct {
	rt   *Runtime
	sock string
	log  *slog.Logger

	once sync.Once
	ln   net.Listener
	wg   sync.WaitGroup
}

// controlRequest is one line of JSON from a client; the answer is one controlReply.
type controlRequest struct {
	Op    string         `json:"op"` // "stop", "remove", "condition", "ephemeral" or "deadline"
	Pod   string         `json:"pod"`
	Grace *time.Duration `json:"grace,omitempty"`
	// Condition is the condition to set (op "condition").
	Condition *conditionRequest `json:"condition,omitempty"`
	// Ephemeral is the ephemeral container to add (op "ephemeral").
	Ephemeral *ephemeralRequest `json:"ephemeral,omitempty"`
	// Deadline is the active deadline to set (op "deadline", Pod.SetActiveDeadline).
	Deadline *time.Duration `json:"deadline,omitempty"`
}

// conditionRequest is a pod condition to set through the control socket (Pod.SetCondition).
type conditionRequest struct {
	Type    ConditionType   `json:"type"`
	Status  ConditionStatus `json:"status"`
	Reason  string          `json:"reason,omitempty"`
	Message string          `json:"message,omitempty"`
}

type controlReply struct {
	Error    string `json:"error,omitempty"`
	NotFound bool   `json:"notFound,omitempty"`
	// Invalid: the request was refused as invalid (ErrInvalidSpec), as SetActiveDeadline's
	// longer deadline, which only the manager can tell.
	Invalid bool `json:"invalid,omitempty"`
}

func newControl(r *Runtime) *control {
	// The PID says who serves it; the random part keeps Runtimes of one process apart.
	name := strconv.Itoa(os.Getpid()) + "-" + newID()[:8] + ".sock"
	sock := filepath.Join(r.cfg.StateDir, "control", name)
	if len(sock) > 107 {
		sock = "" // too long for a unix socket address: other processes cannot reach our pods
	}
	return &control{rt: r, sock: sock, log: r.log}
}

// path is the socket's path, "" if the runtime has none.
func (c *control) path() string { return c.sock }

// listen starts serving on first use. A failure leaves the runtime without a control socket:
// its pods can still be seen by other processes, just not stopped through it.
func (c *control) listen() {
	c.once.Do(func() {
		if c.sock == "" {
			return
		}
		dir := filepath.Dir(c.sock)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			c.log.Warn("control socket", "err", err)
			c.sock = ""
			return
		}
		if err := secureDir(dir, c.log); err != nil {
			c.log.Warn("control socket: not serving", "err", err)
			c.sock = ""
			return
		}
		removeStaleSockets(filepath.Dir(c.sock))
		ln, err := net.Listen("unix", c.sock)
		if err != nil {
			c.log.Warn("control socket", "err", err)
			c.sock = ""
			return
		}
		c.ln = ln
		c.wg.Go(c.serve)
	})
}

func (c *control) serve() {
	for {
		conn, err := c.ln.Accept()
		if err != nil {
			return
		}
		c.wg.Go(func() { c.handle(conn) })
	}
}

func (c *control) handle(conn net.Conn) {
	defer conn.Close()
	// A client sends its request at once; one that does not must not hold Close up.
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	reply := controlReply{}
	if err := c.serveOne(conn); err != nil {
		reply.Error, reply.NotFound, reply.Invalid = err.Error(), errors.Is(err, ErrNotFound), errors.Is(err, ErrInvalidSpec)
	}
	_ = json.NewEncoder(conn).Encode(reply)
}

// serveOne checks the peer, reads its request and does it.
func (c *control) serveOne(conn net.Conn) error {
	uid, err := peercred.PeerUID(conn)
	if err != nil {
		c.log.Warn("control socket: peer refused", "err", err)
		return fmt.Errorf("control: %w", err)
	}
	if uid != 0 && uid != os.Geteuid() {
		c.log.Warn("control socket: peer refused", "uid", uid)
		return fmt.Errorf("control: uid %d may not use this socket (root and uid %d only): %w", uid, os.Geteuid(), errPeerRefused)
	}
	req, err := readControlRequest(conn)
	if err != nil {
		return err
	}
	return c.do(req)
}

func (c *control) do(req controlRequest) error {
	p, err := c.rt.worker(req.Pod)
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
		return p.Stop(ctx, opts...)
	case "remove":
		if req.Grace != nil {
			_ = p.Stop(ctx, WithGracePeriod(*req.Grace))
		}
		return p.Remove(ctx)
	case "condition":
		c := req.Condition
		return p.SetCondition(c.Type, c.Status, c.Reason, c.Message)
	case "ephemeral":
		_, err := p.AddEphemeralContainer(ctx, req.Ephemeral.spec())
		return err
	case "deadline":
		return p.SetActiveDeadline(*req.Deadline)
	}
	return fmt.Errorf("control: unknown op %q", req.Op)
}

// close stops serving and waits for requests in flight.
func (c *control) close() {
	c.once.Do(func() {}) // no listener after close
	if c.ln != nil {
		_ = c.ln.Close()
		_ = os.Remove(c.sock)
	}
	c.wg.Wait()
}

// errPeerRefused: the peer of a control connection is neither root nor the socket's owner.
var errPeerRefused = errors.New("peer refused")

// errNoManager means no process answers on a pod's control socket: its manager is gone.
var errNoManager = errors.New("no process manages the pod")

// errManagerLost means the manager accepted the connection and then went away before it
// answered (a manager killed while it listens): whether it acted is unknown, and the caller
// decides from its PID whether it is gone.
var errManagerLost = errors.New("the pod's manager closed the connection before it answered")

// ask sends req to the control socket at sock and waits for the answer.
func ask(ctx context.Context, sock string, req controlRequest) error {
	if sock == "" {
		return errNoManager
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return fmt.Errorf("%w: %w", errNoManager, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		return fmt.Errorf("control: %w: %w", errManagerLost, err)
	}
	var reply controlReply
	if err := json.NewDecoder(conn).Decode(&reply); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("control: %w: %w", errManagerLost, err)
	}
	switch {
	case reply.NotFound:
		return fmt.Errorf("%s: %w", reply.Error, ErrNotFound)
	case reply.Invalid:
		return &remoteInvalidError{msg: reply.Error}
	case reply.Error != "":
		return errors.New(reply.Error)
	}
	return nil
}

// answers reports whether a process serves the control socket.
func answers(sock string) bool {
	if sock == "" {
		return false
	}
	conn, err := net.DialTimeout("unix", sock, time.Second)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// removeStaleSockets removes the sockets of processes that ended without closing their Runtime.
// A socket is its process's from bind to close, but answers only from listen on: one that does
// not answer may be a live process's between the two. So a socket is removed only if the
// process its name says made it (<pid>-<n>.sock) is gone; a name that says no PID is left alone.
func removeStaleSockets(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, ok := socketPID(e.Name())
		if !ok || processAlive(pid) {
			continue
		}
		if path := filepath.Join(dir, e.Name()); !answers(path) {
			_ = os.Remove(path)
		}
	}
}

// socketPID returns the PID in a control socket's name (see newControl).
func socketPID(name string) (int, bool) {
	base, ok := strings.CutSuffix(name, ".sock")
	if !ok {
		return 0, false
	}
	p, _, ok := strings.Cut(base, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(p)
	return pid, err == nil && pid > 0
}

// remoteInvalidError is a manager's refusal of a request as invalid (controlReply.Invalid): its
// message, and errors.Is(err, ErrInvalidSpec).
type remoteInvalidError struct{ msg string }

func (e *remoteInvalidError) Error() string { return e.msg }

// Is makes errors.Is(err, ErrInvalidSpec) true.
func (e *remoteInvalidError) Is(target error) bool { return target == ErrInvalidSpec }
