package stats

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// hostUsage is what the whole host uses, as the kubelet reads it from the root cgroup.
type hostUsage struct {
	at time.Time
	// cpuNanos is the CPU time all processes used since boot; ok false if unknown.
	cpuNanos uint64
	cpuOK    bool
	// usage, workingSet, rss are the host's memory in bytes (workingSet: usage less the
	// inactive file cache); total is the physical memory. memOK false if unknown.
	usage, workingSet, rss, total uint64
	memOK                         bool
	// bootTime is when the host booted (the node's StartTime).
	bootTime time.Time
}

// cgroupRoot is where the cgroup hierarchies are mounted.
const cgroupRoot = "/sys/fs/cgroup"

// readHostUsage reads the host's CPU and memory as the kubelet's cAdvisor does for the root
// cgroup: on cgroup v1 cpuacct.usage and memory.usage_in_bytes less total_inactive_file; on v2
// (whose root has no memory.current) cpu.stat's usage_usec and /proc/meminfo's MemTotal less
// MemFree, less Inactive(file). /proc/stat is the fallback for the CPU time.
func readHostUsage() hostUsage {
	h := hostUsage{at: time.Now()}
	stat, _ := os.ReadFile("/proc/stat")
	h.bootTime = bootTime(stat)
	mem := Meminfo()
	h.total = uint64(max(mem["MemTotal"], 0))
	if n, ok := readUint(filepath.Join(cgroupRoot, "cpuacct", "cpuacct.usage")); ok {
		h.cpuNanos, h.cpuOK = n, true
	} else if kv := readKV(filepath.Join(cgroupRoot, "cpu.stat")); kv != nil {
		if us, ok := kv["usage_usec"]; ok {
			h.cpuNanos, h.cpuOK = us*1000, true
		}
	}
	if !h.cpuOK {
		h.cpuNanos, h.cpuOK = procStatCPU(stat)
	}
	if u, ok := readUint(filepath.Join(cgroupRoot, "memory", "memory.usage_in_bytes")); ok {
		kv := readKV(filepath.Join(cgroupRoot, "memory", "memory.stat"))
		h.usage, h.rss, h.memOK = u, kv["total_rss"], true
		h.workingSet = sub0(u, kv["total_inactive_file"])
	} else if h.total > 0 {
		h.usage = sub0(h.total, uint64(max(mem["MemFree"], 0)))
		h.workingSet = sub0(h.usage, uint64(max(mem["Inactive(file)"], 0)))
		h.rss = uint64(max(mem["AnonPages"], 0))
		h.memOK = true
	}
	return h
}

// procStatCPU is the busy CPU time of /proc/stat's "cpu" line (user, nice, system, irq,
// softirq, steal; in USER_HZ, 100 on Linux), in nanoseconds.
func procStatCPU(stat []byte) (uint64, bool) {
	line, _, _ := bytes.Cut(stat, []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) < 9 || f[0] != "cpu" {
		return 0, false
	}
	var ticks uint64
	for _, i := range []int{1, 2, 3, 6, 7, 8} {
		n, err := strconv.ParseUint(f[i], 10, 64)
		if err != nil {
			return 0, false
		}
		ticks += n
	}
	return ticks * uint64(time.Second/100), true
}

// bootTime is /proc/stat's btime.
func bootTime(stat []byte) time.Time {
	s := bufio.NewScanner(bytes.NewReader(stat))
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "btime "); ok {
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return time.Unix(n, 0)
			}
		}
	}
	return time.Time{}
}

// readUint reads a file holding one number.
func readUint(path string) (uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	return n, err == nil
}

// readKV reads a flat-keyed cgroup file ("key value" lines), nil if it cannot be read.
func readKV(path string) map[string]uint64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
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
	return out
}

// sub0 is a-b, 0 if b is more.
func sub0(a, b uint64) uint64 {
	if b >= a {
		return 0
	}
	return a - b
}

// Meminfo returns /proc/meminfo's fields in bytes.
func Meminfo() map[string]int64 {
	out := map[string]int64{}
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return out
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) < 2 {
			continue
		}
		n, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil {
			continue
		}
		if len(fields) > 2 && fields[2] == "kB" {
			n *= 1024
		}
		out[strings.TrimSuffix(fields[0], ":")] = n
	}
	return out
}

// DiskSpace returns the size and available bytes of dir's filesystem.
func DiskSpace(dir string) (total, avail int64, ok bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, 0, false
	}
	return int64(st.Blocks) * int64(st.Bsize), int64(st.Bavail) * int64(st.Bsize), true
}
