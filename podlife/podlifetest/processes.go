package podlifetest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Processes returns, sorted, the live processes (zombies left out: PID 1 may not reap them) whose
// command line, its arguments separated by NUL bytes as in /proc/PID/cmdline, contains substr.
// With DaemonArgs it finds the containerd of a directory; with a temporary directory, whatever a
// test started from it.
func Processes(substr string) []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(b), substr) || !live(pid) {
			continue
		}
		pids = append(pids, pid)
	}
	slices.Sort(pids)
	return pids
}

// DaemonArgs is what the command line of the containerd that podlife/daemon starts for dir
// contains (see Processes).
func DaemonArgs(dir string) string {
	return "\x00--config\x00" + filepath.Join(dir, "config.toml") + "\x00"
}

// live reports whether pid exists and is not a zombie.
func live(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return false
	}
	return s[i+2] != 'Z' && s[i+2] != 'X'
}

// ProcessesWithin is Processes once none is left or within has passed (scaled by TimeScale):
// the shared container logger of a state dir exits on its own about 2 s after the last
// container it logs ends, so a cleanup that has just removed the pods waits for it.
func ProcessesWithin(substr string, within time.Duration) []int {
	deadline := time.Now().Add(Budget(within))
	for {
		pids := Processes(substr)
		if len(pids) == 0 || time.Now().After(deadline) {
			return pids
		}
		time.Sleep(100 * time.Millisecond)
	}
}
