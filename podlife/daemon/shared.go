package daemon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/containerd/containerd/v2/client"
	"golang.org/x/sys/unix"
)

const (
	// lockPollInterval is how often a process waiting for the start lock
	// tries it again (flock has no deadline of its own).
	lockPollInterval = 20 * time.Millisecond
	// maxLogSize is the size above which [Ensure] moves the log file to
	// LogFile.1 before starting a daemon, so that it does not grow forever.
	maxLogSize = 16 << 20
	// goneInterval is how often Ensure, waiting for a daemon that does not serve yet, checks
	// that it still runs.
	goneInterval = 100 * time.Millisecond
	// killWait bounds the wait for a process to exit after SIGKILL.
	killWait = 10 * time.Second
)

// ErrNotRunning is wrapped by the errors of [Lookup] and [Shutdown] when no
// containerd serves the directory.
var ErrNotRunning = errors.New("daemon: no containerd runs")

// errExitedEarly is what waitServing returns when the process it waits for
// exits first.
var errExitedEarly = errors.New("exited before serving")

// Info describes the containerd that serves a directory.
type Info struct {
	// Dir is the daemon's absolute directory ([Config.Dir]).
	Dir string
	// Address is its gRPC socket, for client.New.
	Address string
	// PID is its process id; 0 where the platform cannot tell.
	PID int
	// LogFile is where a daemon started by [Ensure] writes its output.
	LogFile string
	// Started reports whether this call of [Ensure] started it.
	Started bool
}

// Ensure makes sure a containerd serves Config.Dir and returns it. If one
// answers already, whichever process started it, Ensure returns it. If not,
// Ensure starts one that belongs to the directory rather than to the calling
// process:
//
//   - it runs in a session of its own (no terminal signal reaches it) and
//     gets no parent-death signal: it outlives the process that started it;
//   - its output goes to Config.LogFile, by default Dir/containerd.log
//     (moved to containerd.log.1 first when it exceeds 16 MiB; while it runs,
//     an Ensure that finds it serving copies a log above 16 MiB there and
//     empties it), and its PID
//     to Dir/containerd.pid; it inherits no other file (Ensure marks those
//     the process inherited without close-on-exec as close-on-exec first);
//   - the start happens under an exclusive flock on Dir/start.lock, so that
//     of several processes (or goroutines) calling Ensure at once exactly one
//     starts it and the others wait for the lock, then find it serving.
//
// The process that started it waits for it in a goroutine, so that it is
// reaped (not left a zombie) if it exits while that process lives; nothing
// ever stops it but [Shutdown] (or a signal sent by hand). A daemon that
// died is started again by the next Ensure, on the same root and state: the
// shims of its tasks keep running meanwhile and containerd reloads them.
// A daemon whose process is alive but whose socket does not answer yet
// (found by its PID file or, failing that, by its command line in /proc) is
// waited for, never duplicated; if it dies without serving, Ensure starts
// another.
//
// If ctx has no deadline, [DefaultStartTimeout] applies. If the daemon Ensure
// started exits or does not serve in time, Ensure stops it and returns an
// error quoting the end of its log. Config.Binary is looked up only when a
// daemon has to be started; Config.Logger gets the package's messages only, among them a
// warning when the daemon Ensure starts is older than containerd 2.0 ([CheckVersion]).
func Ensure(ctx context.Context, cfg Config) (Info, error) {
	p, err := resolveDir(cfg.Dir)
	if err != nil {
		return Info{}, err
	}
	cfg.Dir = p.dir
	if cfg.LogFile == "" {
		cfg.LogFile = p.log
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultStartTimeout)
		defer cancel()
	}
	info := Info{Dir: p.dir, Address: p.socket, LogFile: cfg.LogFile}
	if serving(ctx, p.socket) {
		info.PID, _ = peerPID(p.socket)
		rotateLiveLog(p, cfg)
		return info, nil
	}

	if err := os.MkdirAll(p.dir, 0o711); err != nil {
		return Info{}, fmt.Errorf("daemon: create dir: %w", err)
	}
	unlock, err := lockDir(ctx, p)
	if err != nil {
		return Info{}, err
	}
	defer unlock()

	// Another process may have started it while this one waited for the
	// lock; or a daemon runs that does not answer yet (its starter died
	// before it did, or it is very slow). Either way, wait for it: a
	// second containerd on the same root must never start.
	pid := runningPID(p)
	if socketAnswers(p.socket) || pid != 0 {
		gone, stop := watchGone(ctx, p)
		err := waitServing(ctx, p.socket, gone)
		stop()
		if err == nil {
			info.PID, _ = peerPID(p.socket)
			return info, nil
		}
		if !errors.Is(err, errExitedEarly) {
			return Info{}, fmt.Errorf("daemon: the containerd of %s (pid %d) does not serve: %w; see its log %s", p.dir, pid, err, cfg.LogFile)
		}
		// It died without serving (and its starter is gone, or it would hold the lock): start
		// another one now rather than wait out ctx.
		cfg.Logger.Warn("a containerd of the directory died before it served; starting another", "dir", p.dir, "pid", pid)
	}
	return startDetached(ctx, cfg, p)
}

// watchGone returns a channel closed once no daemon of p runs any more (neither a live process
// with p's configuration nor an answering socket), checked every goneInterval (runningPID may
// read all of /proc), and the function that ends the watch.
func watchGone(ctx context.Context, p paths) (<-chan struct{}, func()) {
	gone := make(chan struct{})
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(goneInterval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if runningPID(p) == 0 && !socketAnswers(p.socket) {
				close(gone)
				return
			}
		}
	}()
	return gone, func() { cancel(); <-done }
}

// startDetached starts the daemon of p in a session of its own and waits
// until it serves. The caller holds the start lock.
func startDetached(ctx context.Context, cfg Config, p paths) (Info, error) {
	if err := cfg.resolveBinary(); err != nil {
		return Info{}, err
	}
	if err := prepareDir(p); err != nil {
		return Info{}, err
	}
	rotateLog(cfg.LogFile)
	lf, err := os.OpenFile(cfg.LogFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return Info{}, fmt.Errorf("daemon: open log file: %w", err)
	}
	offset, _ := lf.Seek(0, io.SeekEnd)
	fmt.Fprintf(lf, "--- podlife: pid %d starts %s for %s at %s\n", os.Getpid(), cfg.Binary, p.dir, time.Now().UTC().Format(time.RFC3339Nano))

	cmd := exec.Command(cfg.Binary, "--config", p.config)
	cmd.Dir = p.dir
	cmd.Env = environ(cfg)
	cmd.Stdout, cmd.Stderr = lf, lf // the daemon writes its log itself: nothing here has to copy it
	cmd.SysProcAttr = detachedSysProcAttr()
	keepFDsFromDaemon()
	begin := time.Now()
	err = cmd.Start()
	_ = lf.Close()
	if err != nil {
		return Info{}, fmt.Errorf("daemon: start %s: %w", cfg.Binary, err)
	}
	pid := cmd.Process.Pid
	exited := make(chan struct{})
	go func() {
		// Reap it if it exits while this process lives; never kill it.
		_ = cmd.Wait()
		close(exited)
	}()
	if err := os.WriteFile(p.pid, []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		cfg.Logger.Warn("write containerd pid file", "err", err)
	}

	// A wait that ended (ctx done) just as it came up does not stop it: other processes may use
	// it already (they dial without the lock).
	if err := waitServing(ctx, p.socket, exited); err != nil && !socketAnswers(p.socket) {
		if !errors.Is(err, errExitedEarly) {
			// It is ours and nobody uses it yet: stop it before giving up.
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(DefaultStopTimeout):
				_ = cmd.Process.Signal(syscall.SIGKILL)
				<-exited
			}
		}
		_ = os.Remove(p.pid)
		// cmd.ProcessState is set: exited is closed after Wait returned.
		return Info{}, fmt.Errorf("%w: %s (pid %d) did not serve: %w (%v); the end of its log %s:\n%s",
			ErrExited, cfg.Binary, pid, err, cmd.ProcessState, cfg.LogFile, tailFile(cfg.LogFile, offset))
	}
	cfg.Logger.Info("containerd started", "address", p.socket, "pid", pid, "log", cfg.LogFile, "took", time.Since(begin))
	// Once per start: a containerd older than 2.0 (Debian 12's 1.6 first in PATH) is warned about.
	if v, err := VersionAt(ctx, p.socket); err == nil {
		_ = warnIfOld(cfg.Logger, v, cfg.Binary)
	}
	return Info{Dir: p.dir, Address: p.socket, PID: pid, LogFile: cfg.LogFile, Started: true}, nil
}

// Lookup returns the containerd whose socket answers under dir (started by
// [Ensure] or [Start], by any process), or an error wrapping [ErrNotRunning].
func Lookup(dir string) (Info, error) {
	p, err := resolveDir(dir)
	if err != nil {
		return Info{}, err
	}
	if !socketAnswers(p.socket) {
		return Info{}, fmt.Errorf("%w: nothing answers at %s", ErrNotRunning, p.socket)
	}
	pid, err := peerPID(p.socket)
	if err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return Info{}, fmt.Errorf("%w: %s: %w", ErrNotRunning, p.socket, err)
	}
	return Info{Dir: p.dir, Address: p.socket, PID: pid, LogFile: p.log}, nil
}

// Shutdown stops the containerd of dir, whichever process started it:
// SIGTERM, then SIGKILL if it has not exited when ctx is done (after
// [DefaultStopTimeout] if ctx has no deadline). It holds the start lock
// meanwhile, so that no [Ensure] starts another one halfway.
//
// If check is not nil, it runs first, under the lock, with the daemon's
// address (only when its socket answers); an error from it cancels the
// shutdown and is returned as is. Callers use it to refuse while the daemon
// still has containers.
//
// Shutdown returns an error wrapping [ErrNotRunning] if no daemon runs for
// dir. Shims and their containers are separate processes and keep running.
func Shutdown(ctx context.Context, dir string, check func(ctx context.Context, address string) error) error {
	p, err := resolveDir(dir)
	if err != nil {
		return err
	}
	if _, err := os.Stat(p.dir); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w: no directory %s", ErrNotRunning, p.dir)
	}
	unlock, err := lockDir(ctx, p)
	if err != nil {
		return err
	}
	defer unlock()

	answers := socketAnswers(p.socket)
	pid := 0
	if answers {
		if pid, err = peerPID(p.socket); err != nil {
			return fmt.Errorf("daemon: find the process serving %s: %w", p.socket, err)
		}
	} else {
		pid = runningPID(p) // alive, not answering: still the one to stop
	}
	if pid == 0 {
		removeStale(p)
		return fmt.Errorf("%w: nothing answers at %s", ErrNotRunning, p.socket)
	}
	if check != nil && answers {
		if err := check(ctx, p.socket); err != nil {
			return err
		}
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultStopTimeout)
		defer cancel()
	}
	if err := terminate(ctx, pid, p.config); err != nil {
		return fmt.Errorf("daemon: stop containerd (pid %d) of %s: %w", pid, p.dir, err)
	}
	removeStale(p)
	return nil
}

// removeStale removes the PID file and sockets a daemon that is gone left.
func removeStale(p paths) {
	for _, f := range []string{p.pid, p.socket, p.ttrpc} {
		_ = os.Remove(f)
	}
}

// lockDir takes the exclusive start lock of p, waiting for it until ctx is
// done, and returns the function that releases it. The lock belongs to an
// open file description that no child inherits (Go opens files
// close-on-exec), so a daemon started under it does not keep it.
func lockDir(ctx context.Context, p paths) (func(), error) {
	f, err := os.OpenFile(p.lock, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("daemon: open start lock: %w", err)
	}
	tick := time.NewTicker(lockPollInterval)
	defer tick.Stop()
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() { _ = f.Close() }, nil // closing releases the lock
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			_ = f.Close()
			return nil, fmt.Errorf("daemon: lock %s: %w", p.lock, err)
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, fmt.Errorf("daemon: wait for the start lock %s: %w", p.lock, ctx.Err())
		case <-tick.C:
		}
	}
}

// serving reports whether a containerd serves socket now (one bounded check).
func serving(ctx context.Context, socket string) bool {
	if !socketAnswers(socket) {
		return false
	}
	c, err := client.New(socket)
	if err != nil {
		return false
	}
	defer c.Close()
	return isServing(ctx, c)
}

// waitServing waits until socket accepts connections and containerd reports
// it is serving, until ctx is done or exited is closed (a nil exited is
// never closed).
func waitServing(ctx context.Context, socket string, exited <-chan struct{}) error {
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	wait := func() error {
		select {
		case <-exited:
			return errExitedEarly
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
			return nil
		}
	}
	for !socketAnswers(socket) {
		if err := wait(); err != nil {
			return err
		}
	}
	c, err := client.New(socket)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer c.Close()
	for !isServing(ctx, c) {
		if err := wait(); err != nil {
			return err
		}
	}
	return nil
}

// runningPID returns the PID of a live (not zombie) containerd started with
// p's configuration, else 0: the one in p's PID file, or else one found in
// /proc (its starter may have died between starting it and writing the PID
// file, or the file was removed).
func runningPID(p paths) int {
	if b, err := os.ReadFile(p.pid); err == nil {
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err == nil && pid > 0 && isDaemonOf(pid, p.config) {
			return pid
		}
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		if isDaemonOf(pid, p.config) {
			return pid
		}
	}
	return 0
}

// isDaemonOf reports whether pid is alive (not a zombie) and was started
// with --config config. It reads /proc: false where there is none.
func isDaemonOf(pid int, config string) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name, which is in parentheses.
	if i := bytes.LastIndexByte(stat, ')'); i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' || stat[i+2] == 'X' {
		return false
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false
	}
	return bytes.Contains(cmdline, []byte("\x00--config\x00"+config+"\x00"))
}
