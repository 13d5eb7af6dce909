package logdriver

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"
)

// A logger whose log file has a flush FIFO pair beside it (MakeFlush, before the logger
// starts) writes, when asked (Flush), the lines of output it holds without their newline, as
// partial lines: the shim keeps its end of the container's pipes open until the task is
// deleted, so a last line without a newline would otherwise reach the log only then, after the
// container's exit was recorded (and its termination message read from the log). The pair is
// found by its name, not passed as an argument: an older logger ignores it (Flush then fails),
// and a newer one serves an older manager's containers without it.

// FlushPrefix is the flush FIFO pair of the log file at path ("<dir>/<attempt>.log"): the
// files <dir>/<attempt>.flush.req (a byte asks for a flush) and .ack (a byte says it is done),
// which the rotation's "<attempt>.log.*" and the log readers' "*.log" leave alone, and
// crilog.PruneAttempts removes with their attempt.
func FlushPrefix(path string) string {
	return strings.TrimSuffix(path, ".log") + ".flush"
}

// MakeFlush creates the FIFO pair at prefix (0600).
func MakeFlush(prefix string) error {
	for _, suffix := range []string{".req", ".ack"} {
		if err := syscall.Mkfifo(prefix+suffix, 0o600); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("flush FIFO: %w", err)
		}
	}
	return nil
}

// Flush asks the logger serving the FIFO pair at prefix to write what it holds, and waits
// (timeout at most) until it has. An error says the log may still miss it (no logger reads
// the pair: none was made, the logger is an older one, or it has ended).
func Flush(prefix string, timeout time.Duration) error {
	ack, err := os.OpenFile(prefix+".ack", os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	defer ack.Close()
	// Non-blocking: ENXIO when no logger has the FIFO open.
	req, err := os.OpenFile(prefix+".req", os.O_WRONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	_, err = req.Write([]byte{1})
	req.Close()
	if err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	if err := ack.SetReadDeadline(deadline); err != nil {
		return err
	}
	var b [1]byte
	for {
		n, err := ack.Read(b[:])
		if n > 0 {
			return nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err // the deadline passed
		}
		// EOF: the logger has not opened its end yet (it opens both as it starts).
		if time.Now().After(deadline) {
			return os.ErrDeadlineExceeded
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// flusher is a logger's end of a flush FIFO pair.
type flusher struct{ req, ack *os.File }

// openFlush opens the FIFO pair at prefix, if there is one (nil if not): before the logger
// signals its readiness, so that a container that exits at once can be flushed.
func openFlush(prefix string) *flusher {
	for _, suffix := range []string{".req", ".ack"} {
		if fi, err := os.Lstat(prefix + suffix); err != nil || fi.Mode().Type() != os.ModeNamedPipe {
			return nil
		}
	}
	// Both read-write: neither open blocks, the request FIFO never reports EOF, and an
	// acknowledgement never fails for want of a reader.
	req, err := os.OpenFile(prefix+".req", os.O_RDWR|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil
	}
	ack, err := os.OpenFile(prefix+".ack", os.O_RDWR|syscall.O_NOFOLLOW, 0)
	if err != nil {
		req.Close()
		return nil
	}
	return &flusher{req: req, ack: ack}
}

// serve answers flush requests: each byte read flushes every stream, once what the container
// wrote is out of its pipes (inputs), then a byte is written back. It returns when the request
// FIFO fails (the logger's end).
func (f *flusher) serve(inputs []io.Reader, streams []io.Closer) {
	defer f.req.Close()
	defer f.ack.Close()
	var b [1]byte
	for {
		if _, err := f.req.Read(b[:]); err != nil {
			return
		}
		drained(inputs, time.Second)
		for _, s := range streams {
			_ = s.Close() // writes a held partial line; the stream goes on
		}
		if _, err := f.ack.Write(b[:]); err != nil {
			return
		}
	}
}

// drained waits (timeout at most) until the pipes among inputs hold no unread bytes, and then
// a moment for the copies to hand the last bytes read to their streams. A flush is asked for
// once the container has exited: nothing more comes into the pipes.
func drained(inputs []io.Reader, timeout time.Duration) {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if unread(inputs) == 0 {
			break
		}
	}
	time.Sleep(copyGrace)
}

// copyGrace is how long a copy may take from reading bytes to writing them to its stream.
const copyGrace = 20 * time.Millisecond

// close closes the pair, ending serve.
func (f *flusher) close() {
	_ = f.req.Close()
	_ = f.ack.Close()
}
