// Package logdriver is the container logger that containerd's shim runs beside each container
// (containerd's "binary" log driver): the shim starts it with the container's stdout and
// stderr as fds 3 and 4 and a readiness pipe as fd 5, and it writes them to the container
// attempt's CRI log file (package crilog), rotated by size. It lives as long as the container's
// task, whatever becomes of the process that manages the pod.
//
// Of this repository it imports only internal/crilog. It must not import package podlife: it runs
// in the logger process, which podlife/containerlogger and internal/cmd/podlife-logger start
// without the SDK.
package logdriver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
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
		if a == argFile {
			return true
		}
	}
	return false
}

// config is the parsed arguments.
type config struct {
	path   string
	limits crilog.Limits
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
		default:
			return c, fmt.Errorf("unknown argument %q", k)
		}
		if err != nil {
			return c, fmt.Errorf("%s: %w", k, err)
		}
	}
	if c.path == "" {
		return c, fmt.Errorf("no %s", argFile)
	}
	if c.limits.MaxSize < crilog.MinMaxSize || c.limits.MaxFiles < 2 {
		return c, fmt.Errorf("limits %+v: want a max size of at least %d and at least 2 files", c.limits, crilog.MinMaxSize)
	}
	return c, nil
}

// Main runs the logger with the program's arguments and exits: 0 once the container's output
// has ended (the task was deleted), 1 on an error (printed to stderr).
func Main() {
	cfg, err := parseArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "podlife container logger:", err)
		os.Exit(2)
	}
	logging.Run(func(ctx context.Context, lc *logging.Config, ready func() error) error {
		return serve(ctx, cfg, lc.Stdout, lc.Stderr, ready)
	})
}

// serve copies stdout and stderr to the log file until both end, or until ctx ends (the shim's
// SIGTERM) and then at most drainTimeout more. A log file it cannot open makes it drain the
// output to nowhere (and report the error when it ends): a container must not die of SIGPIPE,
// nor block, because its log cannot be written.
func serve(ctx context.Context, cfg config, stdout, stderr io.Reader, ready func() error) error {
	var sink func(name string) io.WriteCloser
	w, openErr := crilog.Open(cfg.path, cfg.limits)
	if openErr != nil {
		fmt.Fprintln(os.Stderr, "podlife container logger: the output is dropped:", openErr)
		sink = func(string) io.WriteCloser { return nopCloser{io.Discard} }
	} else {
		sink = w.Stream
	}
	fl := openFlush(FlushPrefix(cfg.path))
	if err := ready(); err != nil {
		if w != nil {
			_ = w.Close()
		}
		return fmt.Errorf("signal readiness: %w", err)
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	streams := map[string]io.WriteCloser{"stdout": sink("stdout"), "stderr": sink("stderr")}
	if fl != nil {
		go fl.serve([]io.Reader{stdout, stderr}, []io.Closer{streams["stdout"], streams["stderr"]})
	}
	for name, r := range map[string]io.Reader{"stdout": stdout, "stderr": stderr} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := streams[name]
			_, err := io.Copy(s, r)
			_ = s.Close() // a trailing line without its newline, marked partial
			if err != nil && !errors.Is(err, os.ErrClosed) {
				mu.Lock()
				errs = append(errs, fmt.Errorf("%s: %w", name, err))
				mu.Unlock()
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		select {
		case <-done:
		case <-time.After(drainTimeout):
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if w != nil {
		errs = append(errs, w.Close())
	}
	return errors.Join(append(errs, openErr)...)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
