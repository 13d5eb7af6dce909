package podlife

import (
	"github.com/podlife/podlife/podlife/internal/logs"
)

// logLine is one parsed line of a CRI log file (see logs.Line).
type logLine = logs.Line

// parseLogLine parses one CRI-format log line (without its newline): logs.ParseLine.
func parseLogLine(line []byte) (logLine, bool) { return logs.ParseLine(line) }
