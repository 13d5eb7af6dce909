package logs

import (
	"bytes"
	"time"
)

// Line is one parsed line of a CRI log file.
type Line struct {
	Time    time.Time
	Stream  string
	Partial bool
	Text    string
}

// ParseLine parses one CRI-format log line (without its newline).
func ParseLine(line []byte) (Line, bool) {
	parts := bytes.SplitN(line, []byte{' '}, 4)
	if len(parts) < 3 {
		return Line{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, string(parts[0]))
	if err != nil {
		return Line{}, false
	}
	ll := Line{Time: t, Stream: string(parts[1]), Partial: string(parts[2]) == "P"}
	if len(parts) == 4 {
		ll.Text = string(parts[3])
	}
	return ll, true
}
