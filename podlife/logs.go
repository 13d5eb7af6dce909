package podlife

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// criLog writes a container attempt's stdout and stderr to one file in the CRI log format that
// the kubelet and `kubectl logs` read: "<RFC3339Nano time> <stream> <P|F> <text>", one line per
// line of output, P marking a partial line (split because it was too long, or cut at exit).
//
// The file is rotated at limits.MaxSize (see LogLimits).
type criLog struct {
	limits LogLimits
	path   string

	mu   sync.Mutex
	f    *os.File
	size int64
}

// maxLogLine is where a long line is split into partial lines, as containerd's CRI does.
const maxLogLine = 16 * 1024

// openCRILog opens the log file of a container's attempt in dir (limits with their defaults
// applied), and removes the files of attempts older than the previous one.
func openCRILog(dir string, attempt int, limits LogLimits) (*criLog, string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", err
	}
	pruneAttempts(dir, attempt)
	path := filepath.Join(dir, strconv.Itoa(attempt)+".log")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, "", err
	}
	var size int64
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	return &criLog{limits: limits, path: path, f: f, size: size}, path, nil
}

// stream returns a writer for one stream ("stdout" or "stderr"). Close it to flush a trailing
// partial line.
func (l *criLog) stream(name string) io.WriteCloser {
	return &criStream{log: l, name: name}
}

func (l *criLog) writeLine(stream string, tag byte, text []byte) {
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
	l.mu.Lock()
	defer l.mu.Unlock()
	n, _ := l.f.Write(b.Bytes())
	l.size += int64(n)
	if l.size >= l.limits.MaxSize {
		l.rotate()
	}
}

// Close closes the file.
func (l *criLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Close()
}

type criStream struct {
	log  *criLog
	name string
	buf  []byte
}

func (s *criStream) Write(p []byte) (int, error) {
	s.buf = append(s.buf, p...)
	for {
		i := bytes.IndexByte(s.buf, '\n')
		if i < 0 {
			break
		}
		s.log.writeLine(s.name, 'F', s.buf[:i])
		s.buf = s.buf[i+1:]
	}
	for len(s.buf) >= maxLogLine {
		s.log.writeLine(s.name, 'P', s.buf[:maxLogLine])
		s.buf = s.buf[maxLogLine:]
	}
	if len(s.buf) == 0 {
		s.buf = nil
	}
	return len(p), nil
}

func (s *criStream) Close() error {
	if len(s.buf) > 0 {
		s.log.writeLine(s.name, 'P', s.buf)
		s.buf = nil
	}
	return nil
}

// LogLine is one parsed line of a CRI log file.
type LogLine struct {
	Time    time.Time
	Stream  string
	Partial bool
	Text    string
}

// ParseLogLine parses one CRI-format log line (without its newline).
func ParseLogLine(line []byte) (LogLine, bool) {
	parts := bytes.SplitN(line, []byte{' '}, 4)
	if len(parts) < 3 {
		return LogLine{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, string(parts[0]))
	if err != nil {
		return LogLine{}, false
	}
	ll := LogLine{Time: t, Stream: string(parts[1]), Partial: string(parts[2]) == "P"}
	if len(parts) == 4 {
		ll.Text = string(parts[3])
	}
	return ll, true
}
