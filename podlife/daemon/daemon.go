package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/containerd/containerd/v2/client"

	"github.com/podlife/podlife/internal/procutil"
)

const (
	// DefaultStartTimeout bounds Start when its context has no deadline.
	DefaultStartTimeout = 30 * time.Second
	// DefaultStopTimeout is how long Stop waits after SIGTERM before it
	// sends SIGKILL, when its context has no deadline.
	DefaultStopTimeout = 10 * time.Second
	// outputDrainTimeout is how long the output of an exited daemon is
	// read on, in case a descendant still holds the pipe.
	outputDrainTimeout = time.Second
)

// ErrExited is wrapped by the errors that report a daemon which exited
// without being stopped.
var ErrExited = errors.New("daemon: containerd exited")

// Daemon is a running containerd started by [Start]. Its methods are safe
// for concurrent use.
type Daemon struct {
	binary string
	paths  paths
	logger *slog.Logger
	proc   *procutil.Process
	out    *output
	client *client.Client // for readiness and Version; closed by Stop

	exited   chan struct{} // closed after the process exited and its output was read
	exitErr  error         // set before exited is closed if it exited on its own
	stopping atomic.Bool

	stopOnce sync.Once
}

// Start writes Dir/config.toml, starts containerd as a child process (see
// [Ensure] for one that outlives the caller) and waits until it
// serves its API. If ctx has no deadline, [DefaultStartTimeout] applies. If
// the daemon exits or does not come up in time, Start stops it and returns
// an error that quotes its last output lines.
//
// Start refuses to run when a daemon already serves the socket under Dir.
func Start(ctx context.Context, cfg Config) (*Daemon, error) {
	cfg, p, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultStartTimeout)
		defer cancel()
	}
	if err := os.MkdirAll(p.dir, 0o711); err != nil {
		return nil, fmt.Errorf("daemon: create dir: %w", err)
	}
	// The start lock keeps Start and Ensure from starting two daemons on
	// one directory.
	unlock, err := lockDir(ctx, p)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if pid := runningPID(p); pid != 0 {
		return nil, fmt.Errorf("daemon: a containerd (pid %d) already runs for %s", pid, p.dir)
	}
	if err := prepareDir(p); err != nil {
		return nil, err
	}

	begin := time.Now()
	d, err := launch(cfg, p)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(p.pid, []byte(strconv.Itoa(d.PID())+"\n"), 0o644); err != nil {
		d.logger.Warn("write containerd pid file", "err", err)
	}
	if err := d.waitReady(ctx); err != nil {
		// Stop on a fresh context: ctx may be what just expired.
		_ = d.Stop(context.Background())
		return nil, err
	}
	d.logger.Info("containerd serving", "address", p.socket, "pid", d.PID(), "took", time.Since(begin))
	return d, nil
}

// prepareDir creates the daemon's directory, refuses a socket that
// answers, removes stale sockets and writes the configuration.
func prepareDir(p paths) error {
	if err := os.MkdirAll(p.dir, 0o711); err != nil {
		return fmt.Errorf("daemon: create dir: %w", err)
	}
	if socketAnswers(p.socket) {
		return fmt.Errorf("daemon: a containerd already serves %s", p.socket)
	}
	for _, s := range []string{p.socket, p.ttrpc} {
		if err := os.Remove(s); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("daemon: remove stale socket: %w", err)
		}
	}
	if err := os.WriteFile(p.config, []byte(renderConfig(p)), 0o644); err != nil {
		return fmt.Errorf("daemon: write config: %w", err)
	}
	return nil
}

// launch starts the process and the goroutines that read its output and
// notice its exit.
func launch(cfg Config, p paths) (*Daemon, error) {
	var logFile *os.File
	if cfg.LogFile != "" {
		f, err := os.OpenFile(cfg.LogFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("daemon: open log file: %w", err)
		}
		logFile = f
	}
	closeLog := func() {
		if logFile != nil {
			_ = logFile.Close()
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		closeLog()
		return nil, fmt.Errorf("daemon: create output pipe: %w", err)
	}

	cmd := exec.Command(cfg.Binary, "--config", p.config)
	cmd.Dir = p.dir
	cmd.Env = environ(cfg)
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = sysProcAttr()

	var copyTo io.Writer // stays a nil interface without a log file
	if logFile != nil {
		copyTo = logFile
	}
	d := &Daemon{
		binary: cfg.Binary,
		paths:  p,
		logger: cfg.Logger,
		out:    newOutput(cfg.Logger, copyTo),
		exited: make(chan struct{}),
	}
	d.proc, err = procutil.Start(cmd)
	_ = w.Close()
	if err != nil {
		_ = r.Close()
		closeLog()
		return nil, fmt.Errorf("daemon: start %s: %w", cfg.Binary, err)
	}
	go d.out.pump(r)
	go func() {
		<-d.proc.Done()
		select {
		case <-d.out.done:
		case <-time.After(outputDrainTimeout):
		}
		_ = r.Close()
		<-d.out.done
		closeLog()
		if !d.stopping.Load() {
			d.exitErr = d.exitError("without being stopped")
			d.logger.Error("containerd exited", "pid", d.PID(), "err", d.proc.Err())
		}
		close(d.exited)
	}()
	return d, nil
}

// environ returns the daemon's environment: ours plus cfg.Env, with the
// binary's directory first in PATH.
func environ(cfg Config) []string {
	env := append(os.Environ(), cfg.Env...)
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	dir := filepath.Dir(cfg.Binary)
	if path != "" {
		dir += string(os.PathListSeparator) + path
	}
	// exec.Cmd keeps the last value of a duplicated key.
	return append(env, "PATH="+dir)
}

// exitError describes the exit of the process, quoting its last output.
func (d *Daemon) exitError(when string) error {
	status := "exit status 0"
	if err := d.proc.Err(); err != nil {
		status = err.Error()
	}
	return fmt.Errorf("%w %s (pid %d, %s); last output:\n%s", ErrExited, when, d.PID(), status, d.out.Tail())
}

// Address returns the path of the daemon's gRPC socket, for client.New.
func (d *Daemon) Address() string { return d.paths.socket }

// Dir returns the absolute directory the daemon keeps its files in.
func (d *Daemon) Dir() string { return d.paths.dir }

// Root returns the daemon's root directory (Dir/root), under which the
// snapshotters mount.
func (d *Daemon) Root() string { return d.paths.root }

// PID returns the process id of the daemon.
func (d *Daemon) PID() int { return d.proc.Pid() }

// Done returns a channel that is closed once the daemon process has exited,
// whether by Stop or on its own, and its output has been read.
func (d *Daemon) Done() <-chan struct{} { return d.exited }

// Err returns nil while the daemon runs and when it exited because of
// Stop. After an exit on its own (see Done) it returns an error wrapping
// [ErrExited] that quotes the daemon's last output lines.
func (d *Daemon) Err() error {
	select {
	case <-d.exited:
		return d.exitErr
	default:
		return nil
	}
}

// Version returns the version the daemon reports, such as "v2.4.2" for a
// release build or "1.6.20~ds1" for Debian's.
func (d *Daemon) Version(ctx context.Context) (string, error) {
	v, err := d.client.Version(ctx)
	if err != nil {
		return "", fmt.Errorf("daemon: version: %w", err)
	}
	return v.Version, nil
}

// Stop ends the daemon: SIGTERM to the process Start created (never its
// group), then SIGKILL if it has not exited when ctx is done, or after
// [DefaultStopTimeout] if ctx has no deadline. Stop returns once the process
// is gone. It is idempotent; every call returns the result of the first,
// which is nil unless the daemon had already exited on its own (see Err).
// Shims and their containers keep running.
func (d *Daemon) Stop(ctx context.Context) error {
	d.stopOnce.Do(func() { d.stop(ctx) })
	<-d.exited
	return d.exitErr
}

func (d *Daemon) stop(ctx context.Context) {
	d.stopping.Store(true)
	if d.client != nil {
		_ = d.client.Close()
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultStopTimeout)
		defer cancel()
	}
	d.signal(syscall.SIGTERM)
	select {
	case <-d.exited:
		return
	case <-ctx.Done():
	}
	d.logger.Warn("containerd did not stop in time, killing it", "pid", d.PID())
	d.signal(syscall.SIGKILL)
}

// signal sends sig to the daemon unless it was already reaped; os.Process
// guarantees the PID is not signalled after that.
func (d *Daemon) signal(sig syscall.Signal) {
	err := d.proc.Signal(sig)
	if err != nil && !errors.Is(err, os.ErrProcessDone) {
		d.logger.Warn("signal containerd", "pid", d.PID(), "signal", sig, "err", err)
	}
}
