package worker

import (
	"github.com/containerd/containerd/v2/pkg/cio"

	"github.com/podlife/podlife/podlife/internal/worker/attempt"
)

// AttachFIFOs returns the FIFO paths of the instance id of a pod whose directory is podDir (see
// attempt.AttachFIFOs).
func AttachFIFOs(podDir, id string, stdin, tty bool) cio.Config {
	return attempt.AttachFIFOs(podDir, id, stdin, tty)
}

// resumeAttachCopy takes over the copy of an adopted, running interactive instance's output to
// its log and to attached clients, which its previous manager did (see
// attempt.ResumeAttachCopy), at its adoption.
func (i *instance) resumeAttachCopy(p *Worker) {
	if lg, ok := attempt.ResumeAttachCopy(p.sandbox.Dir(), i.id, i.logPath, p.host.Cfg.Logs, p.host.Closing, p.log); ok {
		i.log, i.streams = lg.Writer, lg.Streams
	}
}
