package attempt

import (
	"io"
	"log/slog"
	"os"

	"github.com/podlife/podlife/internal/crilog"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// An interactive container's output goes to its log as well as to attached clients, as under
// the kubelet (CRI writes a TTY or stdin container's output to its log file): the shim writes
// it to FIFOs of their own, attach/<container ID>-{out,err}, which this process copies
// (tasks.TeeAttach) to the container's log and to the clients' FIFOs, -stdout and -stderr. The
// clients' FIFOs are held open for writing by the copy (read-write, so that a client opening
// one never finds it without a writer), written without blocking: output that no client
// reads waits there (64 KiB), the rest is in the log only. The copy's end (the process's
// output closed) closes them: a client's read then ends.

// interactiveOutput makes the FIFOs of the interactive instance id of the pod whose directory
// is podDir and opens its attempt's log in logDir, written by this process (see TeeAttach); the
// copy ends at the latest when stop is closed.
func interactiveOutput(podDir, logDir, id string, attempt int, stdin, tty bool, limits crilog.Limits, stop <-chan struct{}) (tasks.Output, Log, error) {
	out, err := AttachOutput(podDir, id, stdin, tty)
	out.StopCopy = stop
	if err != nil {
		return out, Log{}, err
	}
	w, path, err := OpenCRILog(logDir, attempt, limits)
	if err != nil {
		return out, Log{}, err
	}
	out.Stdout, out.Stderr = w.Stream("stdout"), w.Stream("stderr")
	return out, Log{Path: path, Writer: w, Streams: []io.Closer{out.Stdout.(io.Closer), out.Stderr.(io.Closer)}}, nil
}

// ResumeAttachCopy takes over the copy of an adopted, running interactive instance's output to
// its log at logPath and to attached clients (tasks.TeeAttach), which its previous manager did:
// until then the output waited in the shim's FIFO. It returns the log it now writes. An
// instance that is not interactive, or whose previous manager had the clients' FIFOs written by
// the shim (no -out FIFO), is left alone (ok false).
func ResumeAttachCopy(podDir, id, logPath string, limits crilog.Limits, closing <-chan struct{}, log *slog.Logger) (Log, bool) {
	client := AttachFIFOs(podDir, id, false, true)
	if _, err := os.Stat(client.Stdout); err != nil {
		return Log{}, false
	}
	if noTTY := AttachFIFOs(podDir, id, false, false); fileExists(noTTY.Stderr) {
		client = noTTY
	}
	shim := tasks.ShimFIFOs(client)
	if !fileExists(shim.Stdout) {
		return Log{}, false
	}
	w, err := crilog.Open(logPath, limits)
	if err != nil {
		log.Warn("the interactive container's output is not logged", "container", id, "err", err)
		return Log{}, false
	}
	stdout, stderr := w.Stream("stdout"), w.Stream("stderr")
	lg := Log{Path: logPath, Writer: w, Streams: []io.Closer{stdout, stderr}}
	if err := tasks.TeeAttach(shim, client, stdout, stderr, closing, make(chan struct{})); err != nil {
		log.Warn("the interactive container's output is not logged", "container", id, "err", err)
	}
	return lg, true
}

// fileExists reports whether path exists (whatever it is: a link is not followed).
func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
