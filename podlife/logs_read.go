package podlife

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"time"
)

// LogOptions select what Pod.Logs writes.
type LogOptions struct {
	// Previous writes the log of the container's previous attempt (kubectl logs --previous).
	Previous bool
	// Follow goes on writing as the container writes, across its restarts and its log's
	// rotations, until ctx ends, the pod ends (Succeeded or Failed) or is removed, or the
	// container is an ephemeral one that exited (kubectl logs -f).
	Follow bool
}

// logs writes the output of a container of any pod in the state directory to w, whichever
// process manages it, or none (see Pod.Logs): it reads the log files under the pod's directory.
func (r *Runtime) logs(ctx context.Context, pod, container string, opts LogOptions, w io.Writer) error {
	rec, err := r.LookupPod(ctx, pod)
	if err != nil {
		return err
	}
	if err := checkName("container", container); err != nil {
		return err
	}
	// A follower waits for a container that the status (written by its manager, maybe another
	// process) does not show yet: an ephemeral container just added.
	if !opts.Follow && !slices.ContainsFunc(rec.allStatuses(), func(cs ContainerStatus) bool { return cs.Name == container }) {
		return fmt.Errorf("container %q in pod %q: %w", container, pod, ErrNotFound)
	}
	var werr error
	print := func(s string) {
		if werr == nil {
			_, werr = io.WriteString(w, s+"\n")
		}
	}
	files := rec.logFiles(container)
	switch {
	case opts.Previous:
		if len(files) < 2 {
			return fmt.Errorf("previous terminated container %q in pod %q: %w", container, pod, ErrNotFound)
		}
		printLogFile(files[len(files)-2], print)
		return werr
	case !opts.Follow:
		if len(files) > 0 {
			printLogFile(files[len(files)-1], print)
		}
		return werr
	}
	current := func() string {
		if fs := rec.logFiles(container); len(fs) > 0 {
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
			rec, err := r.LookupPod(fctx, pod)
			if err != nil || logsEnded(rec, container) {
				settleLogFile(fctx, current())
				return
			}
			select {
			case <-fctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	followLogFiles(fctx, current, print)
	if werr != nil {
		return werr
	}
	return ctx.Err()
}

// allStatuses are the statuses of every container of the pod, ephemeral ones included.
func (r PodRecord) allStatuses() []ContainerStatus {
	s := r.Status
	return slices.Concat(s.InitContainerStatuses, s.ContainerStatuses, s.EphemeralContainerStatuses)
}

// logsEnded reports whether the container will write no more: its pod ended, or it is an
// ephemeral container that exited (they never restart).
func logsEnded(rec PodRecord, container string) bool {
	if rec.Status.Phase == PhaseSucceeded || rec.Status.Phase == PhaseFailed {
		return true
	}
	for _, cs := range rec.Status.EphemeralContainerStatuses {
		if cs.Name == container && cs.State.Terminated != nil {
			return true
		}
	}
	return false
}

// settleLogFile waits (3 s at most) until the file at path stops growing: the logger may still
// be writing a container's last lines when its exit is recorded.
func settleLogFile(ctx context.Context, path string) {
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

// followLogFiles prints the lines of the log file current names, moving to the next file when
// current changes (a restart's new attempt) or the file was rotated (a new file under the same
// name), until ctx is done; then it drains what was written.
func followLogFiles(ctx context.Context, current func() string, print func(string)) {
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
		if cur := current(); cur != "" && (cur != path || logRotated(f, cur)) {
			if f != nil {
				pending = drainLog(f, pending, print)
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
			pending = drainLog(f, pending, print)
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

// logRotated reports whether the file at path is no longer f (it was renamed aside, and a new
// one started).
func logRotated(f *os.File, path string) bool {
	if f == nil {
		return false
	}
	open, err1 := f.Stat()
	now, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && !os.SameFile(open, now)
}

// drainLog prints the complete lines written since the last call and returns what is left of an
// incomplete one.
func drainLog(f *os.File, pending []byte, print func(string)) []byte {
	b, _ := io.ReadAll(f)
	pending = append(pending, b...)
	for {
		i := bytes.IndexByte(pending, '\n')
		if i < 0 {
			return pending
		}
		if l, ok := parseLogLine(pending[:i]); ok {
			print(l.Text)
		}
		pending = pending[i+1:]
	}
}

// printLogFile prints the lines of the log file at path.
func printLogFile(path string, print func(string)) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	drainLog(f, nil, print)
}
