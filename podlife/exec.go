package podlife

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/containerd/containerd/v2/pkg/cio"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife/internal/ctrd"
)

// current returns the container's current instance and its task (nil if none).
func (c *Container) current() (*instance, taskHandle) {
	var inst *instance
	var task taskHandle
	c.pod.do(func() {
		if c.cur != nil {
			inst, task = c.cur, c.cur.task
		}
	})
	return inst, task
}

// Signal sends a signal to the container's main process.
func (c *Container) Signal(ctx context.Context, sig syscall.Signal) error {
	_, task := c.current()
	if task == nil {
		return fmt.Errorf("container %q: no process: %w", c.spec.Name, ErrNotFound)
	}
	return task.kill(c.pod.rt.ctx(ctx), sig, false)
}

// execCapture runs argv inside the container and returns its exit code and combined output (up
// to 1 MiB): the hook.Execer of the container's hooks and exec probes (see target). If ctx ends
// first, the process is killed.
func (c *Container) execCapture(ctx context.Context, argv []string) (hook.ExecResult, error) {
	out := &cappedBuffer{max: 1 << 20}
	code, err := c.exec(ctx, argv, ExecIO{Stdout: out, Stderr: out})
	switch {
	case err == nil:
		return hook.ExecResult{ExitCode: code, Output: out.Bytes()}, nil
	case ctx.Err() != nil:
		return hook.ExecResult{ExitCode: -1, Output: out.Bytes()}, err
	}
	return hook.ExecResult{}, err
}

// exec runs argv inside the container's current instance with stdio connected to streams (see
// Pod.Exec) and returns its exit code. If ctx ends first, the process is killed.
func (c *Container) exec(ctx context.Context, argv []string, streams ExecIO) (int, error) {
	p := c.pod
	inst, task := c.current()
	if task == nil {
		return -1, fmt.Errorf("container %q: not running: %w", c.spec.Name, ErrNotFound)
	}
	if p.rt.disconnected() {
		// Fail at once (a probe's period then counts for nothing) rather than wait out its timeout.
		return -1, fmt.Errorf("exec in container %q: containerd does not answer: %w", c.spec.Name, ErrUnavailable)
	}
	bg := context.WithoutCancel(p.rt.ctx(ctx))
	var pspec *specs.Process
	p.do(func() { pspec = inst.procSpec })
	if pspec == nil {
		ps, err := inst.cg.processSpec(bg)
		if err != nil {
			if p.rt.lostConn(ctx, err) {
				err = fmt.Errorf("%w: %w", ErrUnavailable, err)
			}
			return -1, err
		}
		pspec = ps
		p.do(func() { inst.procSpec = pspec })
	}
	code, err := task.exec(ctx, bg, *pspec, argv, streams, p.sandbox.fifoDir())
	switch {
	case err == nil:
		return code, nil
	case ctx.Err() != nil:
		return -1, err
	case p.rt.lostConn(ctx, err):
		return -1, fmt.Errorf("exec in container %q: %w: %w", c.spec.Name, ErrUnavailable, err)
	}
	return -1, fmt.Errorf("exec in container %q: %w", c.spec.Name, err)
}

// execIDPrefix begins the ID of every process podlife execs in a container.
const execIDPrefix = "exec-"

// execProcess runs argv in task with the process settings of ps (environment, user, working
// directory, capabilities), connected to streams, and returns its exit code. If ctx ends first,
// the process is killed and the code is -1. bg carries the containerd calls, which must not be
// cancelled half-way.
func execProcess(ctx, bg context.Context, task *ctrd.Task, ps specs.Process, argv []string, streams ExecIO, fifoDir cio.Opt) (int, error) {
	ps.Args = argv
	ps.Terminal = streams.TTY
	if streams.TTY {
		// A terminal has one output: the shim copies it to stdout.
		streams.Stderr = nil
	}
	var drained chan struct{}
	if streams.Stdin != nil {
		drained = make(chan struct{})
		streams.Stdin = &drainReader{r: streams.Stdin, drained: drained}
	}
	act := &ioActivity{}
	if streams.Stdout != nil {
		streams.Stdout = &activityWriter{w: streams.Stdout, a: act}
	}
	if streams.Stderr != nil {
		streams.Stderr = &activityWriter{w: streams.Stderr, a: act}
	}
	opts := []cio.Opt{cio.WithStreams(streams.Stdin, streams.Stdout, streams.Stderr), fifoDir}
	if streams.TTY {
		opts = append(opts, cio.WithTerminal)
	}
	proc, err := task.Exec(bg, execIDPrefix+newID()[:12], &ps, cio.NewCreator(opts...))
	if err != nil {
		return -1, err
	}
	// The deletion kills the process if it still runs. It runs in the background, bounded: the
	// shim's delete waits (up to 10 s in containerd 2.x) for the process's output to drain,
	// which a background process the command left holding its stdout never lets happen.
	defer func() {
		go func() {
			dctx, cancel := context.WithTimeout(bg, execDeleteTimeout)
			defer cancel()
			if err := proc.Delete(dctx); err != nil {
				// The deletion failed before it released the output copy: release it here.
				if pio := proc.IO(); pio != nil {
					pio.Cancel()
					_ = pio.Close()
				}
			}
		}()
	}()
	statusC, err := proc.Wait(bg)
	if err != nil {
		return -1, err
	}
	if err := proc.Start(bg); err != nil {
		return -1, err
	}
	if streams.TTY && streams.Resize != nil {
		finished := make(chan struct{})
		defer close(finished)
		go forwardResizes(bg, proc.Resize, streams.Resize, finished)
	}
	if drained != nil {
		// The shim holds the stdin FIFO open (for a reattach): the process reads the end of its
		// input only once the shim is told to close it.
		finished := make(chan struct{})
		defer close(finished)
		go func() {
			select {
			case <-drained:
				_ = proc.CloseStdin(bg)
			case <-finished:
			}
		}()
	}
	select {
	case st := <-statusC:
		code, _, err := st.Result()
		if err != nil {
			return -1, err
		}
		waitIO(ctx, proc.IO(), act, execDrainTimeout)
		return int(code), nil
	case <-ctx.Done():
		_ = proc.Kill(bg, syscall.SIGKILL)
		return -1, ctx.Err()
	}
}

// How long an exec's output may stay idle once its process exited before the exec returns
// without waiting for the rest (a command such as `sh -c 'daemon &'` leaves a process holding
// the output open for ever), and how long the exec's deletion may take.
const (
	execDrainTimeout  = time.Second
	execDeleteTimeout = 30 * time.Second
)

// waitIO waits until the process's output has been copied, or until no output was written for
// idle (a write in progress counts as activity), or until ctx ends. The copy goroutines end
// when the process's deletion cancels its IO.
func waitIO(ctx context.Context, pio cio.IO, act *ioActivity, idle time.Duration) {
	if pio == nil {
		return
	}
	done := make(chan struct{})
	go func() {
		pio.Wait()
		close(done)
	}()
	act.touch()
	tick := time.NewTicker(idle / 10)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
			if act.idleFor() >= idle {
				return
			}
		}
	}
}

// ioActivity tells how long an exec's output has been idle.
type ioActivity struct {
	last    atomic.Int64 // unix nanoseconds of the last write's start or end
	writing atomic.Int32 // writes in progress
}

func (a *ioActivity) touch() { a.last.Store(time.Now().UnixNano()) }

func (a *ioActivity) idleFor() time.Duration {
	if a.writing.Load() > 0 {
		return 0
	}
	return time.Since(time.Unix(0, a.last.Load()))
}

// activityWriter records its writes in an ioActivity.
type activityWriter struct {
	w io.Writer
	a *ioActivity
}

func (w *activityWriter) Write(p []byte) (int, error) {
	w.a.writing.Add(1)
	w.a.touch()
	defer func() {
		w.a.touch()
		w.a.writing.Add(-1)
	}()
	return w.w.Write(p)
}

// drainReader closes drained once its reader is at its end (or failed).
type drainReader struct {
	r       io.Reader
	once    sync.Once
	drained chan struct{}
}

func (d *drainReader) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err != nil {
		d.once.Do(func() { close(d.drained) })
	}
	return n, err
}

// cappedBuffer is a concurrency-safe buffer that keeps the first max bytes.
type cappedBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.max - len(b.buf); room > 0 {
		if len(p) > room {
			b.buf = append(b.buf, p[:room]...)
		} else {
			b.buf = append(b.buf, p...)
		}
	}
	return len(p), nil
}

func (b *cappedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf...)
}

// ExecIO connects a process run by Pod.Exec, or attached to by Pod.Attach, to the caller. A nil
// Stdin gives the process no input; a nil Stdout or Stderr discards that output.
type ExecIO struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// TTY gives the process a terminal (kubectl exec -t): its stdin, stdout and stderr are the
	// terminal, whose output goes to Stdout (Stderr is not used). The caller puts its own
	// terminal in raw mode if it has one.
	TTY bool
	// Resize, with TTY, carries the caller's terminal size: its first value (send it at once)
	// sets the initial size, later values follow the caller's window. It is read until the
	// process exits; it need not be closed.
	Resize <-chan TerminalSize
}

// TerminalSize is a terminal's size in characters.
type TerminalSize struct {
	Width, Height uint16
}

// forwardResizes applies the sizes sent on sizes to the process's terminal until done is
// closed or sizes is closed. A failed resize (the process just exited) is ignored.
func forwardResizes(ctx context.Context, resize func(ctx context.Context, w, h uint32) error, sizes <-chan TerminalSize, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case sz, ok := <-sizes:
			if !ok {
				return
			}
			_ = resize(ctx, uint32(sz.Width), uint32(sz.Height))
		}
	}
}

// execRemote runs argv in a running container of a pod in the state directory that this Runtime
// does not manage (see Pod.Exec): in the container's task, with the process settings of its OCI
// spec. The names are valid ones.
func (r *Runtime) execRemote(ctx context.Context, pod, container string, argv []string, streams ExecIO) (int, error) {
	_, ctr, task, err := r.runningTask(ctx, pod, container)
	if err != nil {
		return -1, err
	}
	bg := context.WithoutCancel(r.ctx(ctx))
	ps, err := ctr.processSpec(bg)
	if err != nil {
		return -1, fmt.Errorf("exec in %s/%s: %w", pod, container, err)
	}
	// The shim opens both output FIFOs as soon as any stream is connected: an empty path fails
	// the exec ("opening file \"\" failed").
	if streams.Stdout == nil {
		streams.Stdout = io.Discard
	}
	if streams.Stderr == nil {
		streams.Stderr = io.Discard
	}
	code, err := task.exec(ctx, bg, *ps, argv, streams, filepath.Join(r.cfg.StateDir, "pods", pod, "fifo"))
	if err != nil && ctx.Err() == nil {
		err = fmt.Errorf("exec in %s/%s: %w", pod, container, err)
	}
	return code, err
}
