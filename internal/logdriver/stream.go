package logdriver

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/podlife/podlife/internal/crilog"
)

// copyBufSize is the buffer of each output copy: a pipe read returns what the pipe holds, at
// most this much. Small, since a shared logger holds two per container.
const copyBufSize = 8 << 10

// stream is one container's output (stdout and stderr) being written to its log file.
type stream struct {
	w       *crilog.Writer // nil when the file could not be opened (output dropped)
	openErr error
	fl      *flusher
	inputs  map[string]io.Reader
	sinks   map[string]io.WriteCloser
	done    chan struct{} // closed when both copies have ended

	mu   sync.Mutex
	errs []error
}

// openStream opens cfg's log file and its flush FIFO pair, if any, for the output in stdout and
// stderr. A log file it cannot open makes the stream drain the output to nowhere (finish reports
// the error): a container must not die of SIGPIPE, nor block, because its log cannot be written.
func openStream(cfg config, stdout, stderr io.Reader) *stream {
	s := &stream{done: make(chan struct{}), inputs: map[string]io.Reader{"stdout": stdout, "stderr": stderr}}
	sink := func(string) io.WriteCloser { return nopCloser{io.Discard} }
	s.w, s.openErr = crilog.Open(cfg.path, cfg.limits)
	if s.openErr != nil {
		fmt.Fprintln(os.Stderr, "podlife container logger: the output is dropped:", s.openErr)
		s.w = nil
	} else {
		sink = s.w.Stream
	}
	s.fl = openFlush(FlushPrefix(cfg.path))
	s.sinks = map[string]io.WriteCloser{"stdout": sink("stdout"), "stderr": sink("stderr")}
	return s
}

// start copies the output to the log until both inputs end (s.done).
func (s *stream) start() {
	if s.fl != nil {
		go s.fl.serve([]io.Reader{s.inputs["stdout"], s.inputs["stderr"]}, []io.Closer{s.sinks["stdout"], s.sinks["stderr"]})
	}
	var wg sync.WaitGroup
	for name, r := range s.inputs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := s.sinks[name]
			// Without its WriteTo, so that the copy uses this buffer (os.File's WriteTo
			// allocates 32 KiB).
			_, err := io.CopyBuffer(out, struct{ io.Reader }{r}, make([]byte, copyBufSize))
			_ = out.Close() // a trailing line without its newline, marked partial
			if err != nil && !errors.Is(err, os.ErrClosed) {
				s.mu.Lock()
				s.errs = append(s.errs, fmt.Errorf("%s: %w", name, err))
				s.mu.Unlock()
			}
		}()
	}
	go func() { wg.Wait(); close(s.done) }()
}

// abort closes the stream that was never started.
func (s *stream) abort() {
	if s.w != nil {
		_ = s.w.Close()
	}
	if s.fl != nil {
		s.fl.close()
	}
}

// finish closes the log file and the flush FIFOs, once the copies have ended (or been given
// up on), and returns what went wrong.
func (s *stream) finish() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fl != nil {
		s.fl.close()
	}
	errs := s.errs
	if s.w != nil {
		errs = append(errs, s.w.Close())
	}
	return errors.Join(append(errs, s.openErr)...)
}
