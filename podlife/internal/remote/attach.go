package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/found"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/attempt"
)

// Attaching: an interactive ephemeral container (Stdin or TTY) gets FIFOs under its pod's
// directory, attach/<container ID>-{stdin,stdout,stderr}, that a client (podlife's Pod.Attach, in any
// process on the host) opens directly: the shim reads stdin from its FIFO, and its output,
// which the manager also writes to the container's log, is copied to the others (see
// tasks.TeeAttach). The output waits in the FIFO (64 KiB) until a client reads it.

// errNotAttachable is wrapped by Attach's error for a container created without Stdin or
// TTY: its output is in its log (Pod.Logs).
var errNotAttachable = errors.New("container was not created with stdin or tty")

// Attach connects streams to the main process of a running interactive ephemeral container of
// any pod in the state directory, whichever process manages it (see podlife's Pod.Attach):
// through the FIFOs its shim holds, which any process on the host can open.
func (s Pods) Attach(ctx context.Context, pod, container string, streams api.ExecIO) (int, error) {
	if err := api.CheckName("pod", pod); err != nil {
		return -1, err
	}
	if err := api.CheckName("container", container); err != nil {
		return -1, err
	}
	id, _, task, err := s.runningTask(ctx, pod, container)
	if err != nil {
		return -1, err
	}
	bg := context.WithoutCancel(s.ctx(ctx))
	dir := found.Dir(s.StateDir, pod)
	cfg := attempt.AttachFIFOs(dir, id, true, true)
	if _, err := os.Stat(cfg.Stdout); err != nil {
		return -1, fmt.Errorf("attach to %s/%s: %w", pod, container, errNotAttachable)
	}
	if _, err := os.Stat(cfg.Stdin); err != nil {
		cfg.Stdin = ""
	}
	if _, err := os.Stat(attempt.AttachFIFOs(dir, id, false, false).Stderr); err == nil {
		cfg = attempt.AttachFIFOs(dir, id, cfg.Stdin != "", false)
	}
	statusC, err := task.Wait(bg)
	if err != nil {
		return -1, fmt.Errorf("attach to %s/%s: %w", pod, container, err)
	}
	var copies sync.WaitGroup
	var open []*os.File
	defer func() { tasks.CloseAll(open) }()
	copyOut := func(path string, w io.Writer) error {
		if path == "" {
			return nil
		}
		// The shim holds the write end while the process runs; once it exited, the read is at
		// its end at once (a blocking open would wait for a writer for ever).
		f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return err
		}
		open = append(open, f)
		if w == nil {
			w = io.Discard
		}
		copies.Add(1)
		go func() {
			defer copies.Done()
			_, _ = io.Copy(w, f)
		}()
		return nil
	}
	if err := copyOut(cfg.Stdout, streams.Stdout); err != nil {
		return -1, fmt.Errorf("attach to %s/%s: %w", pod, container, err)
	}
	if err := copyOut(cfg.Stderr, streams.Stderr); err != nil {
		return -1, fmt.Errorf("attach to %s/%s: %w", pod, container, err)
	}
	if cfg.Stdin != "" && streams.Stdin != nil {
		// ENXIO: the shim no longer reads it (the process exited, or an earlier attach ended it).
		in, err := os.OpenFile(cfg.Stdin, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err != nil && !errors.Is(err, syscall.ENXIO) {
			return -1, fmt.Errorf("attach to %s/%s: %w", pod, container, err)
		}
		if in != nil {
			open = append(open, in)
			go func() {
				_, _ = io.Copy(in, streams.Stdin)
				_ = in.Close()
			}()
		}
	}
	if cfg.Terminal && streams.Resize != nil {
		done := make(chan struct{})
		defer close(done)
		go tasks.ForwardResizes(bg, task.Resize, streams.Resize, done)
	}
	outDone := make(chan struct{})
	go func() {
		copies.Wait()
		close(outDone)
	}()
	select {
	case st := <-statusC:
		code, _, err := st.Result()
		select {
		case <-outDone:
		case <-ctx.Done():
		}
		if err != nil {
			return -1, err
		}
		return int(code), nil
	case <-ctx.Done():
		return -1, ctx.Err()
	}
}
