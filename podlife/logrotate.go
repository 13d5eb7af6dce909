package podlife

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Defaults of LogLimits: the kubelet's containerLogMaxSize and containerLogMaxFiles.
const (
	DefaultLogMaxSize  = 10 << 20
	DefaultLogMaxFiles = 5
)

// LogLimits bounds the disk a container's output can take. Each attempt's log file is rotated
// when it reaches MaxSize: it is renamed to "<attempt>.log.<UTC time>" and a new
// "<attempt>.log" is started; of the rotated files, the newest MaxFiles-1 are kept. Only the
// current and the previous attempt's logs are kept (the kubelet keeps the previous container
// for `kubectl logs --previous`). A container's logs therefore never take more than about
// 2 × MaxFiles × MaxSize, whatever it prints.
type LogLimits struct {
	// MaxSize is the size at which a log file is rotated, in bytes; zero means DefaultLogMaxSize.
	MaxSize int64 `json:"maxSize,omitempty"`
	// MaxFiles is how many files of an attempt are kept, the current one included; zero means
	// DefaultLogMaxFiles. At least 2.
	MaxFiles int `json:"maxFiles,omitempty"`
}

func (l LogLimits) withDefaults() LogLimits {
	if l.MaxSize == 0 {
		l.MaxSize = DefaultLogMaxSize
	}
	if l.MaxFiles == 0 {
		l.MaxFiles = DefaultLogMaxFiles
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
const minLogMaxSize = 2 * maxLogLine

// rotatedSuffix is the time format of a rotated file's suffix: fixed width, so that names sort
// by time.
const rotatedSuffix = "20060102-150405.000000000"

// rotate renames the current file aside, starts a new one and removes the oldest rotated files
// beyond the limit. On an error it keeps writing where it can and tries again at the next line.
// Called with l.mu held.
func (l *criLog) rotate() {
	rotated := l.path + "." + time.Now().UTC().Format(rotatedSuffix)
	if err := os.Rename(l.path, rotated); err != nil {
		return
	}
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return // go on in the renamed file; the next line tries again
	}
	_ = l.f.Close()
	l.f, l.size = f, 0
	old, _ := filepath.Glob(l.path + ".*")
	slices.Sort(old)
	for len(old) > l.limits.MaxFiles-1 {
		_ = os.Remove(old[0])
		old = old[1:]
	}
}

// pruneAttempts removes from a container's log directory the files of every attempt before
// current except the newest of them (the previous attempt).
func pruneAttempts(dir string, current int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	attemptOf := func(name string) int {
		n, err := strconv.Atoi(strings.SplitN(name, ".", 2)[0])
		if err != nil {
			return -1
		}
		return n
	}
	previous := -1
	for _, e := range entries {
		if n := attemptOf(e.Name()); n < current {
			previous = max(previous, n)
		}
	}
	for _, e := range entries {
		if n := attemptOf(e.Name()); n >= 0 && n < previous {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
