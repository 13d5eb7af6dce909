package podlife

import (
	"bytes"
	"time"

	"github.com/podlife/podlife/internal/crilog"
)

// openCRILog opens the log file of a container's attempt in dir (limits with their defaults
// applied) for the manager to write, and removes the files of attempts older than the previous
// one. It is the fallback writer, used when no Config.ContainerLogger is set.
func openCRILog(dir string, attempt int, limits LogLimits) (*crilog.Writer, string, error) {
	crilog.PruneAttempts(dir, attempt)
	path := crilog.Path(dir, attempt)
	w, err := crilog.Open(path, limits.crilog())
	if err != nil {
		return nil, "", err
	}
	return w, path, nil
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
