package measure

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
)

// RSSMiB is this process's resident set.
func RSSMiB() float64 {
	return StatusKiB("/proc/self/status", "VmRSS:") / 1024
}

// SettledRSSMiB is this process's resident set after a collection that returns free memory to
// the OS: what it keeps, without the garbage and the free heap an earlier measurement left.
func SettledRSSMiB() float64 {
	debug.FreeOSMemory()
	return RSSMiB()
}

// StatusKiB reads the value (KiB) of the line starting with key in a /proc status or
// smaps_rollup file; 0 if there is none.
func StatusKiB(path, key string) float64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, key) {
			f := strings.Fields(line)
			if len(f) >= 2 {
				v, _ := strconv.ParseFloat(f[1], 64)
				return v
			}
		}
	}
	return 0
}

// LoggerMemory sums PSS and RSS (MiB) of the container loggers writing under stateDir.
func LoggerMemory(stateDir string) (n int, pss, rss float64) {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		// A logger of one container ("--podlife-log-file <path>"), or the shared logger of
		// the state dir ("--podlife-log-daemon <dir>").
		perContainer := slices.Index(args, "--podlife-log-file")
		shared := slices.Index(args, "--podlife-log-daemon")
		if (perContainer < 0 || perContainer+1 >= len(args) || !strings.HasPrefix(args[perContainer+1], stateDir+"/")) &&
			(shared < 0 || shared+1 >= len(args) || filepath.Clean(args[shared+1]) != filepath.Clean(stateDir)) {
			continue
		}
		dir := filepath.Dir(p)
		n++
		pss += StatusKiB(filepath.Join(dir, "smaps_rollup"), "Pss:") / 1024
		rss += StatusKiB(filepath.Join(dir, "smaps_rollup"), "Rss:") / 1024
	}
	return n, pss, rss
}

// ShimMemory sums PSS and RSS (MiB) of the runc shims serving containerd namespace ns.
func ShimMemory(ns string) (n int, pss, rss float64) {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if len(args) == 0 || !strings.Contains(args[0], "containerd-shim-runc-v2") || !slices.Contains(args, ns) {
			continue
		}
		dir := filepath.Dir(p)
		n++
		pss += StatusKiB(filepath.Join(dir, "smaps_rollup"), "Pss:") / 1024
		rss += StatusKiB(filepath.Join(dir, "smaps_rollup"), "Rss:") / 1024
	}
	return n, pss, rss
}

// ProcMemory sums PSS and RSS (MiB) of the processes pids.
func ProcMemory(pids []int) (pss, rss float64) {
	for _, pid := range pids {
		f := fmt.Sprintf("/proc/%d/smaps_rollup", pid)
		pss += StatusKiB(f, "Pss:") / 1024
		rss += StatusKiB(f, "Rss:") / 1024
	}
	return pss, rss
}

// PIDRSSMiB is process pid's resident set.
func PIDRSSMiB(pid int) float64 {
	return StatusKiB(fmt.Sprintf("/proc/%d/status", pid), "VmRSS:") / 1024
}
