package worker

import (
	"io"

	"github.com/podlife/podlife/internal/crilog"
	"github.com/podlife/podlife/internal/logdriver"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// openLog prepares the log file of the instance's attempt in dir (the container's log
// directory), removing the files of attempts older than the previous one, and returns where
// the task's output goes. With Config.ContainerLogger set, the logger that the shim runs beside
// the container writes the file; otherwise this process does, copying the output from FIFOs in
// fifoDir (the fallback: the output stops flowing, and the container blocks on a full pipe,
// once this process is gone).
func (i *instance) openLog(dir, fifoDir string) (tasks.Output, error) {
	cfg := i.rt.Cfg
	if cfg.ContainerLogger == "" {
		w, path, err := openCRILog(dir, i.attempt, cfg.Logs)
		if err != nil {
			return tasks.Output{}, err
		}
		stdout, stderr := w.Stream("stdout"), w.Stream("stderr")
		i.log, i.logPath, i.streams = w, path, []io.Closer{stdout, stderr}
		return tasks.Output{Stdout: stdout, Stderr: stderr, FIFODir: fifoDir}, nil
	}
	crilog.PruneAttempts(dir, i.attempt)
	path := crilog.Path(dir, i.attempt)
	// Made here, so that Logs finds it at once and an unwritable directory fails the create
	// with its reason (the logger's own errors go nowhere).
	w, err := crilog.Open(path, cfg.Logs)
	if err != nil {
		return tasks.Output{}, err
	}
	if err := w.Close(); err != nil {
		return tasks.Output{}, err
	}
	i.logPath = path
	// So that a failed container's last line without a newline is in its log when its
	// termination message falls back to it (see settleOutput).
	if err := logdriver.MakeFlush(logdriver.FlushPrefix(path)); err != nil {
		return tasks.Output{}, err
	}
	args := logdriver.Args(path, cfg.Logs)
	if i.rt.SharedLogger() {
		args = logdriver.SharedArgs(path, cfg.Logs, cfg.StateDir)
	}
	return tasks.Output{Logger: cfg.ContainerLogger, LoggerArgs: args}, nil
}

// openCRILog opens the log file of a container's attempt in dir (limits with their defaults
// applied) for this process to write, and removes the files of attempts older than the
// previous one.
func openCRILog(dir string, attempt int, limits crilog.Limits) (*crilog.Writer, string, error) {
	crilog.PruneAttempts(dir, attempt)
	path := crilog.Path(dir, attempt)
	w, err := crilog.Open(path, limits)
	if err != nil {
		return nil, "", err
	}
	return w, path, nil
}
