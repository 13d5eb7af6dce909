package control

import (
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

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/peercred"
)

// Server is a Runtime's control socket: another process asks through it to stop or remove a
// pod this Runtime manages (a Pod handle of another Runtime: Stop, Remove, SetCondition,
// AddEphemeralContainer, SetActiveDeadline), so that the pod is stopped the
// way its manager would (preStop hooks, grace period, no restart racing the stop). It listens
// on StateDir/control/<pid>-<n>.sock (n numbers the process's Runtimes: each has its own pods),
// in a directory only its owner can enter, from the first pod on.
//
// Only root and the socket's owner (this process's user) are served: each connection's peer is
// checked with SO_PEERCRED, so a socket made reachable by mistake (a looser mode on its
// directory) still serves no other user. A request is one line of JSON of at most
// MaxRequest bytes.
type Server struct {
	sock   string
	log    *slog.Logger
	do     func(Request) error
	checks Checks
	secure func(dir string, log *slog.Logger) error
	alive  func(pid int) bool

	once sync.Once
	ln   net.Listener
	wg   sync.WaitGroup
}

// Config is what a Server needs of its Runtime.
type Config struct {
	// Socket is the socket's path (see SocketName); "" for none (a path too long for a unix
	// socket address: other processes cannot reach the Runtime's pods).
	Socket string
	// Log gets what goes wrong (a refused peer, a socket that cannot be made).
	Log *slog.Logger
	// Do does a request that passed the checks, for a pod of the Runtime; its error (wrapping
	// api.ErrNotFound for a pod the Runtime does not manage) is the reply's.
	Do func(Request) error
	// Checks are the checks of a request's fields that the Runtime owns.
	Checks Checks
	// SecureDir makes the socket's directory the owner's only, or refuses it.
	SecureDir func(dir string, log *slog.Logger) error
	// Alive reports whether the process pid lives (to tell a stale socket).
	Alive func(pid int) bool
}

// New returns the control socket cfg describes; it listens from Listen on.
func New(cfg Config) *Server {
	return &Server{sock: cfg.Socket, log: cfg.Log, do: cfg.Do, checks: cfg.Checks, secure: cfg.SecureDir, alive: cfg.Alive}
}

// SocketName is the name of the socket of a Runtime of process pid, id a random string of the
// Runtime: the PID says who serves it; the random part keeps Runtimes of one process apart.
func SocketName(pid int, id string) string {
	return strconv.Itoa(pid) + "-" + id + ".sock"
}

// Path is the socket's path, "" if the runtime has none.
func (c *Server) Path() string { return c.sock }

// Listen starts serving on first use. A failure leaves the runtime without a control socket:
// its pods can still be seen by other processes, just not stopped through it.
func (c *Server) Listen() {
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
		if err := c.secure(dir, c.log); err != nil {
			c.log.Warn("control socket: not serving", "err", err)
			c.sock = ""
			return
		}
		removeStaleSockets(filepath.Dir(c.sock), c.alive)
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

func (c *Server) serve() {
	for {
		conn, err := c.ln.Accept()
		if err != nil {
			return
		}
		c.wg.Go(func() { c.handle(conn) })
	}
}

func (c *Server) handle(conn net.Conn) {
	defer conn.Close()
	// A client sends its request at once; one that does not must not hold Close up.
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	reply := Reply{}
	if err := c.serveOne(conn); err != nil {
		reply.Error, reply.NotFound, reply.Invalid = err.Error(), errors.Is(err, api.ErrNotFound), errors.Is(err, api.ErrInvalidSpec)
	}
	_ = json.NewEncoder(conn).Encode(reply)
}

// serveOne checks the peer, reads its request and does it.
func (c *Server) serveOne(conn net.Conn) error {
	uid, err := peercred.PeerUID(conn)
	if err != nil {
		c.log.Warn("control socket: peer refused", "err", err)
		return fmt.Errorf("control: %w", err)
	}
	if uid != 0 && uid != os.Geteuid() {
		c.log.Warn("control socket: peer refused", "uid", uid)
		return fmt.Errorf("control: uid %d may not use this socket (root and uid %d only): %w", uid, os.Geteuid(), ErrPeerRefused)
	}
	req, err := readRequest(conn, c.checks)
	if err != nil {
		return err
	}
	return c.do(req)
}

// Close stops serving and waits for requests in flight.
func (c *Server) Close() {
	c.once.Do(func() {}) // no listener after close
	if c.ln != nil {
		_ = c.ln.Close()
		_ = os.Remove(c.sock)
	}
	c.wg.Wait()
}

// removeStaleSockets removes the sockets of processes that ended without closing their Runtime.
// A socket is its process's from bind to close, but answers only from listen on: one that does
// not answer may be a live process's between the two. So a socket is removed only if the
// process its name says made it (<pid>-<n>.sock) is gone; a name that says no PID is left alone.
func removeStaleSockets(dir string, alive func(pid int) bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, ok := socketPID(e.Name())
		if !ok || alive(pid) {
			continue
		}
		if path := filepath.Join(dir, e.Name()); !Answers(path) {
			_ = os.Remove(path)
		}
	}
}

// socketPID returns the PID in a control socket's name (see SocketName).
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
