package podlife

import (
	"fmt"

	"github.com/podlife/podlife/internal/crilog"
)

// Defaults of LogLimits: the kubelet's containerLogMaxSize and containerLogMaxFiles.
const (
	defaultLogMaxSize  = 10 << 20
	defaultLogMaxFiles = 5
)

// LogLimits bounds the disk a container's output can take. Each attempt's log file is rotated
// when it reaches MaxSize: it is renamed to "<attempt>.log.<UTC time>" and a new
// "<attempt>.log" is started; of the rotated files, the newest MaxFiles-1 are kept. Only the
// current and the previous attempt's logs are kept (the kubelet keeps the previous container
// for `kubectl logs --previous`). A container's logs therefore never take more than about
// 2 × MaxFiles × MaxSize, whatever it prints.
type LogLimits struct {
	// MaxSize is the size at which a log file is rotated, in bytes; zero means 10 MiB.
	MaxSize int64 `json:"maxSize,omitempty"`
	// MaxFiles is how many files of an attempt are kept, the current one included; zero means
	// 5. At least 2.
	MaxFiles int `json:"maxFiles,omitempty"`
}

func (l LogLimits) withDefaults() LogLimits {
	if l.MaxSize == 0 {
		l.MaxSize = defaultLogMaxSize
	}
	if l.MaxFiles == 0 {
		l.MaxFiles = defaultLogMaxFiles
	}
	return l
}

func (l LogLimits) validate() error {
	if l.MaxSize < 0 || (l.MaxSize > 0 && l.MaxSize < minLogMaxSize) {
		return fmt.Errorf("config.logs.maxSize: %d must be at least %d bytes (one log line)", l.MaxSize, minLogMaxSize)
	}
	if l.MaxFiles < 0 || l.MaxFiles == 1 {
		return fmt.Errorf("config.logs.maxFiles: %d must be at least 2", l.MaxFiles)
	}
	return nil
}

// minLogMaxSize is the smallest MaxSize: a whole split line fits in a file.
const minLogMaxSize = crilog.MinMaxSize

func (l LogLimits) crilog() crilog.Limits {
	return crilog.Limits{MaxSize: l.MaxSize, MaxFiles: l.MaxFiles}
}
