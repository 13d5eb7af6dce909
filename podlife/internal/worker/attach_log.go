package worker

import (
	"io"
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

// resumeAttachCopy takes over the copy of an adopted, running interactive instance's output to
// its log and to attached clients (tasks.TeeAttach), which its previous manager did: until then the
// output waited in the shim's FIFO. An instance that is not interactive, or whose previous
// manager had the clients' FIFOs written by the shim (no -out FIFO), is left alone.
func (i *instance) resumeAttachCopy(p *Worker) {
	dir := p.sandbox.Dir()
	client := AttachFIFOs(dir, i.id, false, true)
	if _, err := os.Stat(client.Stdout); err != nil {
		return
	}
	if noTTY := AttachFIFOs(dir, i.id, false, false); fileExists(noTTY.Stderr) {
		client = noTTY
	}
	shim := tasks.ShimFIFOs(client)
	if !fileExists(shim.Stdout) {
		return
	}
	w, err := crilog.Open(i.logPath, p.rt.Cfg.Logs)
	if err != nil {
		p.log.Warn("the interactive container's output is not logged", "container", i.id, "err", err)
		return
	}
	stdout, stderr := w.Stream("stdout"), w.Stream("stderr")
	i.log, i.streams = w, []io.Closer{stdout, stderr}
	if err := tasks.TeeAttach(shim, client, stdout, stderr, p.rt.Closing, make(chan struct{})); err != nil {
		p.log.Warn("the interactive container's output is not logged", "container", i.id, "err", err)
	}
}
