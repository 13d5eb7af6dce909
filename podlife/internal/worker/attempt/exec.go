package attempt

import (
	"context"
	"fmt"
	"sync"

	"github.com/containerd/errdefs"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// ProcessSpec reads the process part of the attempt's container's OCI spec (the template of
// its execs); bg is not cancelled half-way. A lost connection is reported as
// errdefs.ErrUnavailable.
func ProcessSpec(ctx, bg context.Context, conn Conn, ctr tasks.Container) (*specs.Process, error) {
	ps, err := ctr.ProcessSpec(bg)
	if err != nil {
		if conn.LostConn(ctx, err) {
			err = fmt.Errorf("%w: %w", errdefs.ErrUnavailable, err)
		}
		return nil, err
	}
	return ps, nil
}

// Exec runs argv inside the running attempt task of container name, from the process spec ps,
// with stdio connected to streams (FIFOs in fifoDir), and returns its exit code. If ctx ends
// first, the process is killed; bg carries the calls that must not be cancelled half-way. A
// lost connection is reported as errdefs.ErrUnavailable.
func Exec(ctx, bg context.Context, conn Conn, name string, task tasks.Task, ps specs.Process, argv []string, streams api.ExecIO, fifoDir string) (int, error) {
	code, err := task.Exec(ctx, bg, ps, argv, streams, fifoDir)
	switch {
	case err == nil:
		return code, nil
	case ctx.Err() != nil:
		return -1, err
	case conn.LostConn(ctx, err):
		return -1, fmt.Errorf("exec in container %q: %w: %w", name, errdefs.ErrUnavailable, err)
	}
	return -1, fmt.Errorf("exec in container %q: %w", name, err)
}

// Capture runs argv with exec and returns its exit code and combined output (up to 1 MiB): the
// hook.Execer of a container's hooks and exec probes. If ctx ends first, the process is killed
// and the code is -1.
func Capture(ctx context.Context, exec func(ctx context.Context, argv []string, streams api.ExecIO) (int, error), argv []string) (hook.ExecResult, error) {
	out := &cappedBuffer{max: 1 << 20}
	code, err := exec(ctx, argv, api.ExecIO{Stdout: out, Stderr: out})
	switch {
	case err == nil:
		return hook.ExecResult{ExitCode: code, Output: out.Bytes()}, nil
	case ctx.Err() != nil:
		return hook.ExecResult{ExitCode: -1, Output: out.Bytes()}, err
	}
	return hook.ExecResult{}, err
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
