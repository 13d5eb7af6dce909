// Package crilog writes a container's output in the CRI log format that the kubelet and
// `kubectl logs` read, one file per container attempt, rotated by size.
//
// It is shared by the two writers podlife has: the managing process itself (output copied
// through FIFOs) and the logger process that containerd's shim runs beside each container
// (see package logdriver).
//
// It imports nothing of this repository and must not: internal/logdriver and package podlife
// (which reads the files) build on it.
package crilog

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// MaxLine is where a long line is split into partial lines, as containerd's CRI does.
const MaxLine = 16 * 1024

// MinMaxSize is the smallest Limits.MaxSize: a whole split line fits in a file.
const MinMaxSize = 2 * MaxLine

// Limits bounds the files of one attempt.
type Limits struct {
	// MaxSize is the size in bytes at which the file is rotated.
	MaxSize int64
	// MaxFiles is how many files are kept, the current one included (at least 2).
	MaxFiles int
}

// Path returns the log file of a container's attempt in the container's log directory.
func Path(dir string, attempt int) string {
	return filepath.Join(dir, strconv.Itoa(attempt)+".log")
}

// Writer writes a container attempt's stdout and stderr to one file in the CRI log format:
// "<RFC3339Nano time> <stream> <P|F> <text>", one line per line of output, P marking a partial
// line (split because it was too long, or cut at exit). The file is rotated at Limits.MaxSize.
type Writer struct {
	limits Limits
	path   string

	mu   sync.Mutex
	f    *os.File
	size int64
}

// Open opens (appending) or creates the log file at path.
func Open(path string, limits Limits) (*Writer, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	var size int64
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	return &Writer{limits: limits, path: path, f: f, size: size}, nil
}

// Stream returns a writer for one stream ("stdout" or "stderr"). Close it to flush a trailing
// partial line.
func (w *Writer) Stream(name string) io.WriteCloser {
	return &stream{log: w, name: name}
}

func (w *Writer) writeLine(stream string, tag byte, text []byte) {
	var b bytes.Buffer
	b.Grow(len(text) + 48)
	b.WriteString(time.Now().Format(time.RFC3339Nano))
	b.WriteByte(' ')
	b.WriteString(stream)
	b.WriteByte(' ')
	b.WriteByte(tag)
	b.WriteByte(' ')
	b.Write(text)
	b.WriteByte('\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	n, _ := w.f.Write(b.Bytes())
	w.size += int64(n)
	if w.size >= w.limits.MaxSize {
		w.rotate()
	}
}

// Close closes the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.f.Close()
}

type stream struct {
	log  *Writer
	name string
	mu   sync.Mutex // Close may flush (a container's exit) while the copy still writes
	buf  []byte
}

func (s *stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = append(s.buf, p...)
	for {
		i := bytes.IndexByte(s.buf, '\n')
		if i < 0 {
			break
		}
		s.log.writeLine(s.name, 'F', s.buf[:i])
		s.buf = s.buf[i+1:]
	}
	for len(s.buf) >= MaxLine {
		s.log.writeLine(s.name, 'P', s.buf[:MaxLine])
		s.buf = s.buf[MaxLine:]
	}
	if len(s.buf) == 0 {
		s.buf = nil
	}
	return len(p), nil
}

func (s *stream) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.buf) > 0 {
		s.log.writeLine(s.name, 'P', s.buf)
		s.buf = nil
	}
	return nil
}
