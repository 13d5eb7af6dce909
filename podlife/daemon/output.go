package daemon

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
)

// tailLines is how many of the daemon's last output lines errors quote.
const tailLines = 20

// output consumes the daemon's combined stdout and stderr: every line goes
// to the logger at debug level and to an optional file, and the last
// tailLines lines are kept for error messages.
type output struct {
	logger *slog.Logger
	file   io.Writer // may be nil
	done   chan struct{}

	mu   sync.Mutex
	tail []string
}

func newOutput(logger *slog.Logger, file io.Writer) *output {
	return &output{logger: logger, file: file, done: make(chan struct{})}
}

// pump reads r until EOF or an error, then closes o.done.
func (o *output) pump(r io.Reader) {
	defer close(o.done)
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			o.add(strings.TrimRight(line, "\r\n"))
		}
		if err != nil {
			return
		}
	}
}

func (o *output) add(line string) {
	if o.file != nil {
		_, _ = io.WriteString(o.file, line+"\n")
	}
	o.logger.LogAttrs(context.Background(), slog.LevelDebug, "containerd", slog.String("line", line))
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.tail) == tailLines {
		copy(o.tail, o.tail[1:])
		o.tail = o.tail[:tailLines-1]
	}
	o.tail = append(o.tail, line)
}

// Tail returns the last lines read, one per line, indented for quoting in
// an error message.
func (o *output) Tail() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.tail) == 0 {
		return "(no output)"
	}
	return "\t" + strings.Join(o.tail, "\n\t")
}
