package ctrd

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// writeFiles writes files (path relative to dir -> content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// On a cgroup v1 (hybrid) host the counters come from the cpuacct, memory and pids
// controllers' files of the process's cgroups, as decodeV1 reads containerd's; a process
// whose cgroup is not the container's is refused.
func TestCgroupFSv1(t *testing.T) {
	dir := t.TempDir()
	const cg = "/podlife/ctr1"
	writeFiles(t, dir, map[string]string{
		"proc/42/cgroup":                            "9:pids:" + cg + "\n4:memory:" + cg + "\n3:cpu,cpuacct:" + cg + "\n0::/\n",
		"proc/43/cgroup":                            "4:memory:/other\n3:cpu,cpuacct:/other\n",
		"cg/cpuacct" + cg + "/cpuacct.usage":        "2500000000\n",
		"cg/memory" + cg + "/memory.usage_in_bytes": "100000\n",
		"cg/memory" + cg + "/memory.limit_in_bytes": "9223372036854771712\n",
		"cg/memory" + cg + "/memory.stat":           "cache 30000\nrss 60000\ntotal_rss 60000\ntotal_inactive_file 25000\n",
		"cg/memory" + cg + "/memory.oom_control":    "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n",
		"cg/pids" + cg + "/pids.current":            "3\n",
	})
	fs := cgroupFS{proc: filepath.Join(dir, "proc"), root: filepath.Join(dir, "cg")}
	m, err := fs.read("ctr1", 42)
	if err != nil {
		t.Fatal(err)
	}
	if m.CPUNanos != 2.5e9 || m.MemoryUsage != 100000 || m.WorkingSet != 75000 || m.RSS != 60000 ||
		m.MemoryLimit != 9223372036854771712 || m.OOMKills != 2 || m.Processes != 3 || m.Timestamp.IsZero() {
		t.Errorf("v1 metrics %+v", m)
	}
	if _, err := fs.read("ctr1", 43); !errors.Is(err, errNotContainer) {
		t.Errorf("another cgroup's process: %v, want errNotContainer", err)
	}
	if _, err := fs.read("ctr1", 44); err == nil {
		t.Error("no such process: no error")
	}
	if _, err := (cgroupFS{}).read("ctr1", 42); err == nil {
		t.Error("zero cgroupFS: no error")
	}

	// A task Sample saw running, whose process is still in its cgroup, is sampled from the
	// cgroup's files alone (this client has no containerd to ask).
	c := &Client{cgroups: fs}
	c.running.set("ctr1", 42)
	got, err := c.Sample(context.Background(), []string{"ctr1"})
	if s := got["ctr1"]; err != nil || !s.Running || s.Pid != 42 || s.Metrics.CPUNanos != 2.5e9 {
		t.Errorf("Sample of a known running task: %+v, %v", got, err)
	}
}

// On cgroup v2 the unified hierarchy's files; memory.max "max" reads as no limit.
func TestCgroupFSv2(t *testing.T) {
	dir := t.TempDir()
	const cg = "/podlife/pod/ctr2"
	writeFiles(t, dir, map[string]string{
		"proc/7/cgroup":               "0::" + cg + "\n",
		"cg" + cg + "/cpu.stat":       "usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\n",
		"cg" + cg + "/memory.current": "80000\n",
		"cg" + cg + "/memory.max":     "max\n",
		"cg" + cg + "/memory.stat":    "anon 50000\nfile 30000\ninactive_file 90000\n",
		"cg" + cg + "/memory.events":  "low 0\nhigh 0\nmax 0\noom 1\noom_kill 1\n",
		"cg" + cg + "/pids.current":   "5\n",
	})
	fs := cgroupFS{proc: filepath.Join(dir, "proc"), root: filepath.Join(dir, "cg")}
	m, err := fs.read("ctr2", 7)
	if err != nil {
		t.Fatal(err)
	}
	if m.CPUNanos != 1.5e9 || m.MemoryUsage != 80000 || m.WorkingSet != 0 || m.RSS != 50000 ||
		m.MemoryLimit != math.MaxUint64 || m.OOMKills != 1 || m.Processes != 5 {
		t.Errorf("v2 metrics %+v", m)
	}
}
