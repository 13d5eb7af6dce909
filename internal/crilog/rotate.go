package crilog

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// rotatedSuffix is the time format of a rotated file's suffix: fixed width, so that names sort
// by time.
const rotatedSuffix = "20060102-150405.000000000"

// rotate renames the current file aside, starts a new one and removes the oldest rotated files
// beyond the limit. On an error it keeps writing where it can and tries again at the next line.
// Called with w.mu held.
func (w *Writer) rotate() {
	rotated := w.path + "." + time.Now().UTC().Format(rotatedSuffix)
	if err := os.Rename(w.path, rotated); err != nil {
		return
	}
	f, err := os.OpenFile(w.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return // go on in the renamed file; the next line tries again
	}
	_ = w.f.Close()
	w.f, w.size = f, 0
	old, _ := filepath.Glob(w.path + ".*")
	slices.Sort(old)
	for len(old) > w.limits.MaxFiles-1 {
		_ = os.Remove(old[0])
		old = old[1:]
	}
}

// PruneAttempts removes from a container's log directory the files of every attempt before
// current except the newest of them (the previous attempt, kept for `logs --previous`).
func PruneAttempts(dir string, current int) {
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
