package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/logs"

	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/internal/logdriver"
	"github.com/podlife/podlife/podlife/internal/ocibuild"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// Termination messages, as the kubelet collects them (kuberuntime's makeMounts and
// getTerminationMessage, the status manager's normalizeStatus): each run of a container gets a
// new empty file, mounted at its TerminationMessagePath; when it exits, the file's end (or,
// with FallbackToLogsOnError, the end of its log) becomes its terminated state's Message.
const (
	// terminationDir is the directory, in the pod's, of the message files (one per instance,
	// named by its containerd ID): off the containers' root filesystems, removed with the pod.
	terminationDir = "termination"
	// maxTerminationMessage is the kubelet's MaxContainerTerminationMessageLength: the file's
	// last bytes are read, up to this many.
	maxTerminationMessage = 4096
	// maxPodTerminationMessages is the kubelet's MaxPodTerminationMessageLogLength: a pod's
	// messages share it, each keeping its first len/(containers + init containers) bytes.
	maxPodTerminationMessages = 12 * 1024
	// terminationLogLines and terminationLogBytes bound the fallback to the log: its last 80
	// lines, and of them the last 2048 bytes.
	terminationLogLines = 80
	terminationLogBytes = 2048
	// terminationLogWindow is how much of the log's end is read to find its last lines.
	terminationLogWindow = 256 * 1024
	// outputSettle bounds the wait, at a failed container's exit, for its last output to reach
	// its log before the log's tail is read.
	outputSettle = 2 * time.Second
)

// terminationMount creates instance id's empty message file, writable by any user (the
// container's may not be root: the kubelet makes it 0666 too), and returns its mount.
func (c *Container) terminationMount(id string) (string, specs.Mount, error) {
	dir := filepath.Join(c.pod.sandbox.Dir(), terminationDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", specs.Mount{}, fmt.Errorf("termination message file: %w", err)
	}
	path := filepath.Join(dir, id)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|syscall.O_NOFOLLOW, 0o666)
	if err != nil {
		return "", specs.Mount{}, fmt.Errorf("termination message file: %w", err)
	}
	err = f.Chmod(0o666) // whatever the umask
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", specs.Mount{}, fmt.Errorf("termination message file: %w", err)
	}
	return path, ocibuild.BindMount(path, c.spec.TerminationMessagePath, false), nil
}

// terminationMessage reads the message of an instance whose process exited with code: the end
// of its message file, else, under FallbackToLogsOnError and a non-zero code, the end of its
// log (once its last output is written), cut to the pod's share. It does I/O: it runs before
// the exit is handed to the pod's loop.
func (c *Container) terminationMessage(inst *instance, task tasks.Task, code int) string {
	fallback := c.spec.TerminationMessagePolicy == TerminationMessageFallbackToLogsOnError && code != 0
	msg, err := readFileTail(inst.termPath, maxTerminationMessage)
	switch {
	case errors.Is(err, fs.ErrNotExist) || inst.termPath == "":
		msg = "" // an instance made before messages were collected
	case err != nil:
		return c.pod.cutTerminationMessage(fmt.Sprintf("Error on reading termination log: %v", err))
	}
	if msg == "" && fallback && inst.logPath != "" {
		inst.settleOutput(task)
		msg = logTail(inst.logPath, terminationLogLines, terminationLogBytes)
	}
	return c.pod.cutTerminationMessage(msg)
}

// cutTerminationMessage keeps the first bytes of msg that the pod's share allows (the kubelet
// cuts them when it reports the status).
func (p *Worker) cutTerminationMessage(msg string) string {
	share := maxPodTerminationMessages
	if n := len(p.spec.Containers) + len(p.spec.InitContainers); n > 0 {
		share /= n
	}
	if len(msg) > share {
		return msg[:share]
	}
	return msg
}

// readFileTail returns the last max bytes of the regular file at path (a link is not
// followed, nor anything but a regular file read).
func readFileTail(path string, max int64) (string, error) {
	if path == "" {
		return "", fs.ErrNotExist
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", filepath.Base(path))
	}
	if fi.Size() > max {
		if _, err := f.Seek(fi.Size()-max, io.SeekStart); err != nil {
			return "", err
		}
	}
	b, err := io.ReadAll(io.LimitReader(f, max))
	return string(b), err
}

// logTail returns the text of the last lines of a CRI log file, at most maxBytes of it (its
// end): each line with its newline, a partial one without, both streams, as the kubelet's
// fallback reads it.
func logTail(path string, lines, maxBytes int) string {
	raw, err := readFileTail(path, terminationLogWindow)
	if err != nil {
		return ""
	}
	b := []byte(raw)
	if fi, err := os.Stat(path); err == nil && fi.Size() > terminationLogWindow {
		// The window starts inside a line: drop it.
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	recs := bytes.Split(bytes.TrimSuffix(b, []byte{'\n'}), []byte{'\n'})
	if len(recs) > lines {
		recs = recs[len(recs)-lines:]
	}
	var out []byte
	for _, rec := range recs {
		l, ok := logs.ParseLine(rec)
		if !ok {
			continue
		}
		out = append(out, l.Text...)
		if !l.Partial {
			out = append(out, '\n')
		}
	}
	if len(out) > maxBytes {
		out = out[len(out)-maxBytes:]
	}
	return string(out)
}

// settleOutput waits (outputSettle at most) until the exited instance's last output is in its
// log, a last line without a newline included: copied by this process (its streams then
// flushed), or written by the logger program beside the shim (asked to flush through its FIFO
// pair, see logdriver.Flush; a logger without one: until its file stops growing).
func (i *instance) settleOutput(task tasks.Task) {
	if len(i.streams) > 0 {
		if w, ok := task.(tasks.OutputWaiter); ok && w.WaitOutput(outputSettle) {
			for _, s := range i.streams {
				_ = s.Close() // flushes a partial line; closed again with the task, harmlessly
			}
		}
		return
	}
	if logdriver.Flush(logdriver.FlushPrefix(i.logPath), outputSettle) == nil {
		return
	}
	size := int64(-1)
	steady := 0
	for deadline := time.Now().Add(outputSettle); time.Now().Before(deadline); {
		fi, err := os.Stat(i.logPath)
		if err != nil {
			return
		}
		if fi.Size() == size {
			if steady++; steady == 2 {
				return
			}
		} else {
			size, steady = fi.Size(), 0
		}
		time.Sleep(50 * time.Millisecond)
	}
}
