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
)

// control is a Runtime's control socket: another process asks through it to stop or remove a
// pod this Runtime manages (Runtime.StopPod, Runtime.RemovePod), so that the pod is stopped the
// way its manager would (preStop hooks, grace period, no restart racing the stop). It listens
// on StateDir/control/<pid>-<n>.sock (n numbers the process's Runtimes: each has its own pods),
// in a directory only root can enter, from the first pod on.
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
	Op    string         `json:"op"` // "stop" or "remove"
	Pod   string         `json:"pod"`
	Grace *time.Duration `json:"grace,omitempty"`
}

type controlReply struct {
	Error    string `json:"error,omitempty"`
	NotFound bool   `json:"notFound,omitempty"`
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
		if err := os.MkdirAll(filepath.Dir(c.sock), 0o700); err != nil {
			c.log.Warn("control socket", "err", err)
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
	var req controlRequest
	if err := json.NewDecoder(conn).Decode(&req); err != nil {
		return
	}
	reply := controlReply{}
	if err := c.do(req); err != nil {
		reply.Error, reply.NotFound = err.Error(), errors.Is(err, ErrNotFound)
	}
	_ = json.NewEncoder(conn).Encode(reply)
}

func (c *control) do(req controlRequest) error {
	p, err := c.rt.Pod(req.Pod)
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

// errNoManager means no process answers on a pod's control socket: its manager is gone.
var errNoManager = errors.New("no process manages the pod")

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
		return err
	}
	var reply controlReply
	if err := json.NewDecoder(conn).Decode(&reply); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("control: %w", err)
	}
	switch {
	case reply.NotFound:
		return fmt.Errorf("%s: %w", reply.Error, ErrNotFound)
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
func removeStaleSockets(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if path := filepath.Join(dir, e.Name()); strings.HasSuffix(e.Name(), ".sock") && !answers(path) {
			_ = os.Remove(path)
		}
	}
}
