package ctrd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// cgroupFS reads a container's cgroup counters from the cgroup filesystem itself: the few
// files Metrics needs, where containerd's task metrics ask the container's shim, which reads
// every controller's files (docs/benchmarks.md, "Usage sampling"). The zero value reads
// nothing (every read fails, and Sample asks containerd).
type cgroupFS struct {
	proc string // where /proc is mounted ("" for none)
	root string // where the cgroup hierarchies are mounted
}

// hostCgroupFS is the host's: /proc and /sys/fs/cgroup.
var hostCgroupFS = cgroupFS{proc: "/proc", root: "/sys/fs/cgroup"}

// errNotContainer is a process whose cgroup is not the container's: its PID is not the task's
// in this process's PID namespace (podlife in a container of its own), or was reused.
var errNotContainer = errors.New("the process's cgroup is not the container's")

// read reads the counters of the cgroup of process pid, which must be container id's: the
// last element of its cgroup path is the ID under containerd's and podlife's layouts. On
// cgroup v1 (or a hybrid host) the cpuacct, memory and pids controllers' files; on v2 the
// unified hierarchy's.
func (fs cgroupFS) read(id string, pid uint32) (Metrics, error) {
	if fs.proc == "" || pid == 0 {
		return Metrics{}, errors.New("no cgroup filesystem")
	}
	b, err := os.ReadFile(filepath.Join(fs.proc, strconv.FormatUint(uint64(pid), 10), "cgroup"))
	if err != nil {
		return Metrics{}, err
	}
	v1, v2 := parseProcCgroup(b)
	at := time.Now()
	var m Metrics
	if mem, ok := v1["memory"]; ok {
		if path.Base(mem) != id {
			return Metrics{}, errNotContainer
		}
		m, err = fs.readV1(v1)
	} else if v2 != "" {
		if path.Base(v2) != id {
			return Metrics{}, errNotContainer
		}
		m, err = fs.readV2(v2)
	} else {
		return Metrics{}, fmt.Errorf("pid %d: no memory cgroup", pid)
	}
	m.Timestamp = at
	return m, err
}

// parseProcCgroup parses /proc/<pid>/cgroup: "hierarchy-ID:controllers:path" lines; v1 maps
// each v1 controller to its path, v2 is the unified hierarchy's path ("0::path").
func parseProcCgroup(b []byte) (v1 map[string]string, v2 string) {
	v1 = map[string]string{}
	s := bufio.NewScanner(bytes.NewReader(b))
	for s.Scan() {
		parts := strings.SplitN(s.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2 = parts[2]
			continue
		}
		for c := range strings.SplitSeq(parts[1], ",") {
			v1[c] = parts[2]
		}
	}
	return v1, v2
}

// readV1 reads cgroup v1's counters as decodeV1 decodes containerd's.
func (fs cgroupFS) readV1(paths map[string]string) (Metrics, error) {
	var m Metrics
	var err error
	dir := func(c string) string { return filepath.Join(fs.root, c, paths[c]) }
	if m.CPUNanos, err = readUint(filepath.Join(dir("cpuacct"), "cpuacct.usage")); err != nil {
		return Metrics{}, err
	}
	mem := dir("memory")
	if m.MemoryUsage, err = readUint(filepath.Join(mem, "memory.usage_in_bytes")); err != nil {
		return Metrics{}, err
	}
	m.MemoryLimit, _ = readUint(filepath.Join(mem, "memory.limit_in_bytes"))
	stat, err := readKV(filepath.Join(mem, "memory.stat"))
	if err != nil {
		return Metrics{}, err
	}
	m.RSS = stat["total_rss"]
	m.WorkingSet = workingSet(m.MemoryUsage, stat["total_inactive_file"])
	if oom, err := readKV(filepath.Join(mem, "memory.oom_control")); err == nil {
		m.OOMKills = oom["oom_kill"]
	}
	if _, ok := paths["pids"]; ok {
		m.Processes, _ = readUint(filepath.Join(dir("pids"), "pids.current"))
	}
	return m, nil
}

// readV2 reads cgroup v2's counters as decodeV2 decodes containerd's.
func (fs cgroupFS) readV2(p string) (Metrics, error) {
	dir := filepath.Join(fs.root, p)
	var m Metrics
	cpu, err := readKV(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		return Metrics{}, err
	}
	m.CPUNanos = cpu["usage_usec"] * 1000
	if m.MemoryUsage, err = readUint(filepath.Join(dir, "memory.current")); err != nil {
		return Metrics{}, err
	}
	m.MemoryLimit, _ = readUint(filepath.Join(dir, "memory.max"))
	stat, err := readKV(filepath.Join(dir, "memory.stat"))
	if err != nil {
		return Metrics{}, err
	}
	m.RSS = stat["anon"]
	m.WorkingSet = workingSet(m.MemoryUsage, stat["inactive_file"])
	if ev, err := readKV(filepath.Join(dir, "memory.events")); err == nil {
		m.OOMKills = ev["oom_kill"]
	}
	m.Processes, _ = readUint(filepath.Join(dir, "pids.current"))
	return m, nil
}

// readUint reads a file of one number; "max" (cgroup v2's no limit) reads as the largest.
func readUint(p string) (uint64, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return 0, err
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return math.MaxUint64, nil
	}
	return strconv.ParseUint(s, 10, 64)
}

// readKV reads a flat-keyed cgroup file ("key value" lines).
func readKV(p string) (map[string]uint64, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	out := map[string]uint64{}
	for line := range strings.SplitSeq(string(b), "\n") {
		k, v, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		if n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64); err == nil {
			out[k] = n
		}
	}
	return out, nil
}
