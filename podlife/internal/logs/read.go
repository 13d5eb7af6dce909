package logs

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
)

// Request is what a reader asks of a container's log (see podlife's Pod.Logs).
type Request struct {
	// Pod and Container name the container, for the errors.
	Pod, Container string
	// Previous writes the log of the container's previous attempt.
	Previous bool
	// Follow goes on writing as the container writes, until ctx ends or ended says it will
	// write no more.
	Follow bool
}

// Write writes the text of the lines of a container's log to w, one a line, as req asks. files
// returns the container's log files, oldest attempt first (the last one is the current
// attempt's); a follower asks it again to move to a restart's new file. ended, polled while
// following, reports whether the container will write no more (see Ended): then what is still
// being written is read and Write returns. A previous attempt that has no file is an error
// wrapping api.ErrNotFound.
func Write(ctx context.Context, w io.Writer, req Request, files func() []string, ended func(context.Context) bool) error {
	var werr error
	print := func(s string) {
		if werr == nil {
			_, werr = io.WriteString(w, s+"\n")
		}
	}
	all := files()
	switch {
	case req.Previous:
		if len(all) < 2 {
			return fmt.Errorf("previous terminated container %q in pod %q: %w", req.Container, req.Pod, api.ErrNotFound)
		}
		PrintFile(all[len(all)-2], print)
		return werr
	case !req.Follow:
		if len(all) > 0 {
			PrintFile(all[len(all)-1], print)
		}
		return werr
	}
	current := func() string {
		if fs := files(); len(fs) > 0 {
			return fs[len(fs)-1]
		}
		return ""
	}
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer cancel()
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			if ended(fctx) {
				Settle(fctx, current())
				return
			}
			select {
			case <-fctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	Follow(fctx, current, print)
	if werr != nil {
		return werr
	}
	return ctx.Err()
}

// Ended reports whether the container will write no more: its pod ended (status), or it is an
// ephemeral container that exited (they never restart).
func Ended(status api.PodStatus, container string) bool {
	if status.Phase == api.PhaseSucceeded || status.Phase == api.PhaseFailed {
		return true
	}
	for _, cs := range status.EphemeralContainerStatuses {
		if cs.Name == container && cs.State.Terminated != nil {
			return true
		}
	}
	return false
}

// Settle waits (3 s at most) until the file at path stops growing: the logger may still
// be writing a container's last lines when its exit is recorded.
func Settle(ctx context.Context, path string) {
	if path == "" {
		return
	}
	var size int64 = -1
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline) && ctx.Err() == nil; {
		fi, err := os.Stat(path)
		if err != nil || fi.Size() == size {
			return
		}
		size = fi.Size()
		select {
		case <-ctx.Done():
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// Follow prints the lines of the log file current names, moving to the next file when
// current changes (a restart's new attempt) or the file was rotated (a new file under the same
// name), until ctx is done; then it drains what was written.
func Follow(ctx context.Context, current func() string, print func(string)) {
	var path string
	var f *os.File
	var pending []byte // the start of a line still being written
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		done := ctx.Err() != nil
		if cur := current(); cur != "" && (cur != path || rotated(f, cur)) {
			if f != nil {
				pending = drain(f, pending, print)
				f.Close()
			}
			var err error
			if f, err = os.Open(cur); err != nil {
				f = nil
			} else {
				path, pending = cur, nil
			}
		}
		if f != nil {
			pending = drain(f, pending, print)
		}
		if done {
			return
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
		}
	}
}

// rotated reports whether the file at path is no longer f (it was renamed aside, and a new
// one started).
func rotated(f *os.File, path string) bool {
	if f == nil {
		return false
	}
	open, err1 := f.Stat()
	now, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && !os.SameFile(open, now)
}

// drain prints the complete lines written since the last call and returns what is left of an
// incomplete one.
func drain(f *os.File, pending []byte, print func(string)) []byte {
	b, _ := io.ReadAll(f)
	pending = append(pending, b...)
	for {
		i := bytes.IndexByte(pending, '\n')
		if i < 0 {
			return pending
		}
		if l, ok := ParseLine(pending[:i]); ok {
			print(l.Text)
		}
		pending = pending[i+1:]
	}
}

// PrintFile prints the lines of the log file at path.
func PrintFile(path string, print func(string)) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	drain(f, nil, print)
}
