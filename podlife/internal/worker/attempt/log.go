package attempt

import (
	"io"

	"github.com/podlife/podlife/internal/crilog"
	"github.com/podlife/podlife/internal/logdriver"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// LogConfig is where a Runtime's containers' output goes (the worker's HostConfig).
type LogConfig struct {
	Logger   string        // Config.ContainerLogger ("": this process writes the logs)
	Limits   crilog.Limits // Config.Logs, defaults applied
	StateDir string
	// Shared reports whether containers hand their output to the shared logger (asked only
	// with a Logger).
	Shared func() bool
}

// Log is an attempt's log: its file and, when this process writes it, its writer and the
// streams that the task's output is copied to (closed with the task).
type Log struct {
	Path    string
	Writer  *crilog.Writer // nil when the logger program writes it
	Streams []io.Closer
}

// Closers returns what the deletion of the task closes: the streams, then the writer.
func (l Log) Closers() []io.Closer {
	out := append([]io.Closer(nil), l.Streams...)
	if l.Writer != nil {
		out = append(out, l.Writer)
	}
	return out
}

// OpenLog prepares the log file of attempt in dir (the container's log directory), removing
// the files of attempts older than the previous one, and returns where the task's output goes.
// With a Logger, the logger that the shim runs beside the container writes the file;
// otherwise this process does, copying the output from FIFOs in fifoDir (the fallback: the
// output stops flowing, and the container blocks on a full pipe, once this process is gone).
func OpenLog(dir, fifoDir string, attempt int, cfg LogConfig) (tasks.Output, Log, error) {
	if cfg.Logger == "" {
		w, path, err := OpenCRILog(dir, attempt, cfg.Limits)
		if err != nil {
			return tasks.Output{}, Log{}, err
		}
		stdout, stderr := w.Stream("stdout"), w.Stream("stderr")
		return tasks.Output{Stdout: stdout, Stderr: stderr, FIFODir: fifoDir},
			Log{Path: path, Writer: w, Streams: []io.Closer{stdout, stderr}}, nil
	}
	crilog.PruneAttempts(dir, attempt)
	path := crilog.Path(dir, attempt)
	// Made here, so that Logs finds it at once and an unwritable directory fails the create
	// with its reason (the logger's own errors go nowhere).
	w, err := crilog.Open(path, cfg.Limits)
	if err != nil {
		return tasks.Output{}, Log{}, err
	}
	if err := w.Close(); err != nil {
		return tasks.Output{}, Log{}, err
	}
	// So that a failed container's last line without a newline is in its log when its
	// termination message falls back to it (see settleOutput).
	if err := logdriver.MakeFlush(logdriver.FlushPrefix(path)); err != nil {
		return tasks.Output{}, Log{}, err
	}
	args := logdriver.Args(path, cfg.Limits)
	if cfg.Shared() {
		args = logdriver.SharedArgs(path, cfg.Limits, cfg.StateDir)
	}
	return tasks.Output{Logger: cfg.Logger, LoggerArgs: args}, Log{Path: path}, nil
}

// OpenCRILog opens the log file of a container's attempt in dir (limits with their defaults
// applied) for this process to write, and removes the files of attempts older than the
// previous one.
func OpenCRILog(dir string, attempt int, limits crilog.Limits) (*crilog.Writer, string, error) {
	crilog.PruneAttempts(dir, attempt)
	path := crilog.Path(dir, attempt)
	w, err := crilog.Open(path, limits)
	if err != nil {
		return nil, "", err
	}
	return w, path, nil
}
