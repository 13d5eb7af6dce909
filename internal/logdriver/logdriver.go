// Package logdriver is the container logger that containerd's shim runs beside each container
// (containerd's "binary" log driver): the shim starts it with the container's stdout and
// stderr as fds 3 and 4 and a readiness pipe as fd 5. With SharedArgs (podlife's), it hands the
// pipes to the shared logger of the state dir and exits (see shared.go); the shared logger, or
// the process itself with Args, writes them to the container attempt's CRI log file (package
// crilog), rotated by size, as long as the container's task lives, whatever becomes of the
// process that manages the pod.
//
// Of this repository it imports only internal/crilog. It must not import package podlife: it runs
// in the logger process, which podlife/containerlogger and internal/cmd/podlife-logger start
// without the SDK.
package logdriver

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/containerd/containerd/v2/core/runtime/v2/logging"

	"github.com/podlife/podlife/internal/crilog"
)

// The arguments the shim passes to the logger: containerd turns the log URI's query into
// "key value" pairs, in no fixed order.
const (
	argFile     = "--podlife-log-file"
	argMaxSize  = "--podlife-log-max-size"
	argMaxFiles = "--podlife-log-max-files"
)

// drainTimeout bounds how long the logger goes on reading after the shim asked it to stop
// (SIGTERM, sent once the task is deleted and the shim has closed its ends of the pipes).
const drainTimeout = 5 * time.Second

// Args returns the log URI arguments (cio.BinaryIO's args) that make the logger write path
// with limits.
func Args(path string, limits crilog.Limits) map[string]string {
	return map[string]string{
		argFile:     path,
		argMaxSize:  strconv.FormatInt(limits.MaxSize, 10),
		argMaxFiles: strconv.Itoa(limits.MaxFiles),
	}
}

// IsLogger reports whether args (a program's arguments, without its name) are those the shim
// gives a logger started from Args.
func IsLogger(args []string) bool {
	for _, a := range args {
		if a == argFile || a == argDaemon || a == argProbe {
			return true
		}
	}
	return false
}

// config is the parsed arguments.
type config struct {
	path   string
	limits crilog.Limits
	shared string // the state directory whose shared logger writes the output; "": this process
}

func parseArgs(args []string) (config, error) {
	var c config
	if len(args)%2 != 0 {
		return c, fmt.Errorf("arguments %q: want key value pairs", args)
	}
	for i := 0; i < len(args); i += 2 {
		k, v := args[i], args[i+1]
		var err error
		switch k {
		case argFile:
			c.path = v
		case argMaxSize:
			c.limits.MaxSize, err = strconv.ParseInt(v, 10, 64)
		case argMaxFiles:
			c.limits.MaxFiles, err = strconv.Atoi(v)
		case argShared:
			c.shared = v
		default:
			return c, fmt.Errorf("unknown argument %q", k)
		}
		if err != nil {
			return c, fmt.Errorf("%s: %w", k, err)
		}
	}
	return c, c.check()
}

// check fails a config without a path or with limits crilog cannot keep.
func (c config) check() error {
	if c.path == "" {
		return fmt.Errorf("no %s", argFile)
	}
	if c.limits.MaxSize < crilog.MinMaxSize || c.limits.MaxFiles < 2 {
		return fmt.Errorf("limits %+v: want a max size of at least %d and at least 2 files", c.limits, crilog.MinMaxSize)
	}
	return nil
}

// Main runs the logger with the program's arguments and exits: 0 once the container's output
// has ended (the task was deleted) or has been handed to the shared logger, 1 on an error
// (printed to stderr). With the shared logger's arguments (see SharedArgs, and the shared
// logger's own, which a hand-off gives it), it runs the shared logger.
func Main() {
	if args := os.Args[1:]; len(args) == 2 && args[0] == argDaemon {
		os.Exit(daemonMain(args[1]))
	}
	if args := os.Args[1:]; len(args) == 1 && args[0] == argProbe {
		fmt.Print(probeAnswer)
		os.Exit(0)
	}
	cfg, err := parseArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "podlife container logger:", err)
		os.Exit(2)
	}
	logging.Run(func(ctx context.Context, lc *logging.Config, ready func() error) error {
		if cfg.shared != "" {
			stdout, okOut := lc.Stdout.(*os.File)
			stderr, okErr := lc.Stderr.(*os.File)
			if okOut && okErr {
				err := handOff(cfg, stdout, stderr)
				if err == nil {
					return ready()
				}
				fmt.Fprintln(os.Stderr, "podlife container logger: writing the output itself:", err)
			}
		}
		return serve(ctx, cfg, lc.Stdout, lc.Stderr, ready)
	})
}

// serve copies stdout and stderr to the log file until both end, or until ctx ends (the shim's
// SIGTERM) and then at most drainTimeout more. A log file it cannot open makes it drain the
// output to nowhere (and report the error when it ends): a container must not die of SIGPIPE,
// nor block, because its log cannot be written.
func serve(ctx context.Context, cfg config, stdout, stderr io.Reader, ready func() error) error {
	s := openStream(cfg, stdout, stderr)
	if err := ready(); err != nil {
		s.abort()
		return fmt.Errorf("signal readiness: %w", err)
	}
	s.start()
	select {
	case <-s.done:
	case <-ctx.Done():
		select {
		case <-s.done:
		case <-time.After(drainTimeout):
		}
	}
	return s.finish()
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
