package podlifetest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// CgroupProcessLeaks lists the live processes in a cgroup of containerd namespace ns, in any
// hierarchy: the cgroup /<ns> (the client's default cgroup parent) and everything below it,
// where every container of the namespace runs (a pod cgroup /<ns>/pod<uid> included). Once
// every pod is removed none should be left. It finds what the shim checks cannot: a `runc init`
// (a container created, never started) or a container's process whose shim is gone, which
// nothing would ever delete. A process leaving its cgroup takes a moment, so it waits until ctx
// is done for them to go before reporting the ones left, each with its command and cgroup.
func CgroupProcessLeaks(ctx context.Context, ns string) []string {
	for {
		procs := CgroupProcesses(ns)
		if len(procs) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			out := make([]string, len(procs))
			for i, p := range procs {
				out[i] = fmt.Sprintf("process %d (%s) in cgroup %s of namespace %q", p.PID, p.Command, p.Cgroup, ns)
			}
			return out
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// CgroupProcess is a process found in a cgroup (see CgroupProcesses).
type CgroupProcess struct {
	PID     int
	Command string // its command line, arguments separated by spaces
	Cgroup  string // its cgroup path under the namespace, in the first hierarchy that has one
}

// CgroupProcesses returns, sorted by PID, the live processes (zombies left out) whose cgroup in
// some hierarchy (/proc/PID/cgroup) is /<ns> or below it.
func CgroupProcesses(ns string) []CgroupProcess {
	var out []CgroupProcess
	if ns == "" {
		return nil
	}
	root := "/" + ns
	procs, _ := filepath.Glob("/proc/[0-9]*/cgroup")
	for _, p := range procs {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err != nil {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		cg, ok := cgroupUnder(b, root)
		if !ok || !live(pid) {
			continue
		}
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		out = append(out, CgroupProcess{PID: pid, Cgroup: cg,
			Command: strings.TrimSpace(string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '})))})
	}
	slices.SortFunc(out, func(a, b CgroupProcess) int { return a.PID - b.PID })
	return out
}

// cgroupUnder returns the first cgroup path of a /proc/PID/cgroup file (lines
// "id:controllers:path") that is root or below it.
func cgroupUnder(file []byte, root string) (string, bool) {
	for _, line := range strings.Split(string(file), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		if path := f[2]; path == root || strings.HasPrefix(path, root+"/") {
			return path, true
		}
	}
	return "", false
}
