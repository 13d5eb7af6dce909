package logdriver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/podlife/podlife/internal/crilog"
)

// errNoDaemon is a hand-off that found no shared logger listening.
var errNoDaemon = errors.New("no shared logger")

// handOff passes the container's output pipes to the shared logger of cfg.shared, starting it
// if none answers, and returns once it has taken them (nil) or it cannot (the caller then
// writes the output itself).
func handOff(cfg config, stdout, stderr *os.File) error {
	deadline := time.Now().Add(handOffTimeout)
	for {
		err := sendPipes(cfg, stdout, stderr, deadline)
		switch {
		case err == nil:
			return nil
		case time.Now().After(deadline):
			return err
		case errors.Is(err, errNoDaemon):
			if err := startDaemon(cfg.shared, deadline); err != nil {
				return err
			}
		default:
			// The shared logger was exiting (idle) as this hand-off reached it: try again,
			// with a new one if need be.
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// sendPipes sends the pipes and cfg to the shared logger and waits for its answer.
func sendPipes(cfg config, stdout, stderr *os.File, deadline time.Time) error {
	c, err := net.DialUnix("unixpacket", nil, &net.UnixAddr{Name: socketName(cfg.shared), Net: "unixpacket"})
	if err != nil {
		return fmt.Errorf("%w: %w", errNoDaemon, err)
	}
	defer c.Close()
	if err := c.SetDeadline(deadline); err != nil {
		return err
	}
	msg, err := json.Marshal(handOffRequest{Path: cfg.path, MaxSize: cfg.limits.MaxSize, MaxFiles: cfg.limits.MaxFiles})
	if err != nil {
		return err
	}
	out, err := rawFd(stdout)
	if err != nil {
		return err
	}
	errFd, err := rawFd(stderr)
	if err != nil {
		return err
	}
	if _, _, err := c.WriteMsgUnix(msg, unix.UnixRights(out, errFd), nil); err != nil {
		return fmt.Errorf("send to the shared logger: %w", err)
	}
	answer := make([]byte, 1024)
	n, err := c.Read(answer)
	if err != nil {
		return fmt.Errorf("the shared logger's answer: %w", err)
	}
	if string(answer[:n]) != "ok" {
		return fmt.Errorf("the shared logger refused the container's output: %s", answer[:n])
	}
	return nil
}

// rawFd is f's descriptor, without Fd's switch to blocking mode.
func rawFd(f *os.File) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	if err := rc.Control(func(p uintptr) { fd = int(p) }); err != nil {
		return -1, err
	}
	return fd, nil
}

// startDaemon starts the shared logger of dir (this program, re-executed in a session of its
// own) and waits until it listens or has exited (another one won the socket).
func startDaemon(dir string, deadline time.Time) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	closeOnExec()
	cmd := exec.Command(exe, argDaemon, filepath.Clean(dir))
	cmd.Dir = "/"
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if f, err := os.OpenFile(DaemonErrorLog(dir), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600); err == nil {
		cmd.Stderr = f
		defer f.Close()
	}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return fmt.Errorf("start the shared logger: %w", err)
	}
	// Not waited for: it outlives this process (and is then reaped by the shim, a
	// subreaper).
	_ = cmd.Process.Release()
	if err := r.SetReadDeadline(deadline); err != nil {
		return err
	}
	var b [1]byte
	if _, err := r.Read(b[:]); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("wait for the shared logger: %w", err)
	}
	return nil
}

// closeOnExec marks every descriptor of this process above stderr close-on-exec: those the shim
// passed (the container's pipes, the readiness pipe) and any it inherited itself must not stay
// open in the shared logger.
func closeOnExec() {
	entries, _ := os.ReadDir("/proc/self/fd")
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
}

// daemonMain runs the shared logger of dir; it returns the process's exit status once it has
// been idle for daemonIdle, or at once if another shared logger of dir listens.
func daemonMain(dir string) int {
	ln, err := net.ListenUnix("unixpacket", &net.UnixAddr{Name: socketName(dir), Net: "unixpacket"})
	if errors.Is(err, syscall.EADDRINUSE) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "podlife shared logger:", err)
		return 1
	}
	if ready := os.NewFile(3, "ready"); ready != nil {
		_, _ = ready.Write([]byte{1})
		_ = ready.Close()
	}
	signal.Ignore(syscall.SIGHUP, syscall.SIGPIPE)
	d := &daemon{lastEnd: time.Now()}
	for {
		_ = ln.SetDeadline(d.idleDeadline())
		c, err := ln.AcceptUnix()
		if err == nil {
			d.take(c)
			continue
		}
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			fmt.Fprintln(os.Stderr, "podlife shared logger:", err)
			return 1
		}
		if d.idle() {
			_ = ln.Close()
			return 0
		}
	}
}

// daemon is the shared logger's count of the containers it writes.
type daemon struct {
	active  atomic.Int64
	mu      sync.Mutex
	lastEnd time.Time
}

// idleDeadline is when the shared logger is idle long enough to exit if no container's output
// comes meanwhile.
func (d *daemon) idleDeadline() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.active.Load() > 0 {
		return time.Now().Add(daemonIdle)
	}
	return d.lastEnd.Add(daemonIdle)
}

// idle reports whether no container's output has been written for daemonIdle.
func (d *daemon) idle() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.active.Load() == 0 && time.Since(d.lastEnd) >= daemonIdle
}

// take receives one hand-off on c and starts writing the container's output.
func (d *daemon) take(c *net.UnixConn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(handOffTimeout))
	cfg, stdout, stderr, err := receive(c)
	if err != nil {
		_, _ = c.Write([]byte(err.Error()))
		return
	}
	s := openStream(cfg, stdout, stderr)
	s.start()
	d.active.Add(1)
	go d.watch(s, filepath.Dir(cfg.path), stdout, stderr)
	_, _ = c.Write([]byte("ok"))
}

// watch waits until the stream ends (its container's task is deleted and the shim has closed
// its ends of the pipes), or its log directory is removed (the pod is gone, whoever still
// holds the pipes), and closes it.
func (d *daemon) watch(s *stream, dir string, inputs ...*os.File) {
	t := time.NewTicker(dirCheck)
	defer t.Stop()
	for running := true; running; {
		select {
		case <-s.done:
			running = false
		case <-t.C:
			if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
				for _, f := range inputs {
					_ = f.Close() // ends the copies
				}
			}
		}
	}
	if err := s.finish(); err != nil {
		fmt.Fprintf(os.Stderr, "podlife shared logger: %s: %v\n", dir, err)
	}
	for _, f := range inputs {
		_ = f.Close()
	}
	d.mu.Lock()
	d.active.Add(-1)
	d.lastEnd = time.Now()
	d.mu.Unlock()
}

// receive reads a hand-off: the request and the two pipes, from a process of this user.
func receive(c *net.UnixConn) (config, *os.File, *os.File, error) {
	if err := samePeerUser(c); err != nil {
		return config{}, nil, nil, err
	}
	buf := make([]byte, 16<<10)
	oob := make([]byte, unix.CmsgSpace(2*4))
	n, oobn, _, _, err := c.ReadMsgUnix(buf, oob)
	if err != nil {
		return config{}, nil, nil, err
	}
	fds, err := rights(oob[:oobn])
	if err != nil {
		return config{}, nil, nil, err
	}
	closeAll := func() {
		for _, fd := range fds {
			_ = unix.Close(fd)
		}
	}
	if len(fds) != 2 {
		closeAll()
		return config{}, nil, nil, fmt.Errorf("want 2 descriptors, got %d", len(fds))
	}
	var req handOffRequest
	if err := json.Unmarshal(buf[:n], &req); err != nil {
		closeAll()
		return config{}, nil, nil, err
	}
	cfg := config{path: req.Path, limits: crilog.Limits{MaxSize: req.MaxSize, MaxFiles: req.MaxFiles}}
	if err := cfg.check(); err != nil {
		closeAll()
		return config{}, nil, nil, err
	}
	for _, fd := range fds {
		// Non-blocking, so that Go's poller serves the reads and Close ends them.
		if err := unix.SetNonblock(fd, true); err != nil {
			closeAll()
			return config{}, nil, nil, err
		}
	}
	return cfg, os.NewFile(uintptr(fds[0]), "stdout"), os.NewFile(uintptr(fds[1]), "stderr"), nil
}

// rights parses the descriptors of an SCM_RIGHTS message.
func rights(oob []byte) ([]int, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var fds []int
	for _, m := range msgs {
		f, err := unix.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		fds = append(fds, f...)
	}
	return fds, nil
}

// samePeerUser fails unless c's peer runs as this process's user.
func samePeerUser(c *net.UnixConn) error {
	rc, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var cred *unix.Ucred
	var credErr error
	if err := rc.Control(func(fd uintptr) { cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) }); err != nil {
		return err
	}
	if credErr != nil {
		return credErr
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("peer uid %d refused", cred.Uid)
	}
	return nil
}
