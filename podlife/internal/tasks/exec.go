package tasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/containerd/containerd/v2/pkg/cio"
	"github.com/opencontainers/runtime-spec/specs-go"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/ctrd"
)

// ExecIDPrefix begins the ID of every process podlife execs in a container.
const ExecIDPrefix = "exec-"

// execProcess runs argv in task with the process settings of ps (environment, user, working
// directory, capabilities), connected to streams, and returns its exit code. If ctx ends first,
// the process is killed and the code is -1. bg carries the containerd calls, which must not be
// cancelled half-way.
func execProcess(ctx, bg context.Context, task *ctrd.Task, ps specs.Process, argv []string, streams api.ExecIO, fifoDir cio.Opt) (int, error) {
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
	proc, err := task.Exec(bg, ExecIDPrefix+newExecID(), &ps, cio.NewCreator(opts...))
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
		go ForwardResizes(bg, proc.Resize, streams.Resize, finished)
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

// ForwardResizes applies the sizes sent on sizes to the process's terminal until done is
// closed or sizes is closed. A failed resize (the process just exited) is ignored.
func ForwardResizes(ctx context.Context, resize func(ctx context.Context, w, h uint32) error, sizes <-chan api.TerminalSize, done <-chan struct{}) {
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

// newExecID is the random part of an exec's process ID (12 hex digits).
func newExecID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
