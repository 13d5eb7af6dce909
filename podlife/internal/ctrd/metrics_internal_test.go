package ctrd

import (
	"testing"
	"time"

	cg1 "github.com/containerd/cgroups/v3/cgroup1/stats"
	cg2 "github.com/containerd/cgroups/v3/cgroup2/stats"
	"github.com/containerd/containerd/api/types"
	"github.com/containerd/typeurl/v2"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// metric wraps stats as containerd's task service sends them.
func metric(t *testing.T, stats any, at time.Time) *types.Metric {
	t.Helper()
	data, err := typeurl.MarshalAnyToProto(stats)
	if err != nil {
		t.Fatal(err)
	}
	return &types.Metric{ID: "c1", Timestamp: timestamppb.New(at), Data: data}
}

// A cgroup v1 container (the fixture's numbers are a busybox container's that wrote 64 MiB to
// a tmpfs and read some files): working set is usage less total_inactive_file.
func TestDecodeMetricsV1(t *testing.T) {
	at := time.Date(2026, 11, 26, 17, 0, 0, 0, time.UTC)
	m := metric(t, &cg1.Metrics{
		CPU: &cg1.CPUStat{Usage: &cg1.CPUUsage{Total: 2_500_000_000, User: 2_000_000_000, Kernel: 500_000_000}},
		Memory: &cg1.MemoryStat{
			Usage:             &cg1.MemoryEntry{Usage: 80 << 20, Limit: 128 << 20},
			RSS:               1 << 20, // this cgroup only: not what is reported
			TotalRSS:          3 << 20,
			InactiveFile:      1 << 20,
			TotalInactiveFile: 10 << 20,
			TotalCache:        77 << 20,
		},
		MemoryOomControl: &cg1.MemoryOomControl{OomKill: 2},
		Pids:             &cg1.PidsStat{Current: 3, Limit: 100},
	}, at)
	got, err := DecodeMetrics(m)
	if err != nil {
		t.Fatal(err)
	}
	want := Metrics{Timestamp: at, CPUNanos: 2_500_000_000, MemoryUsage: 80 << 20, WorkingSet: 70 << 20,
		RSS: 3 << 20, MemoryLimit: 128 << 20, OOMKills: 2, Processes: 3}
	if got != want {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// A cgroup v2 container: CPU in microseconds, RSS is anon, OOM kills from memory.events.
func TestDecodeMetricsV2(t *testing.T) {
	at := time.Date(2026, 11, 26, 17, 0, 1, 0, time.UTC)
	m := metric(t, &cg2.Metrics{
		CPU:          &cg2.CPUStat{UsageUsec: 1_250_000, UserUsec: 1_000_000, SystemUsec: 250_000},
		Memory:       &cg2.MemoryStat{Usage: 70 << 20, UsageLimit: 256 << 20, Anon: 65 << 20, File: 5 << 20, InactiveFile: 4 << 20},
		MemoryEvents: &cg2.MemoryEvents{Oom: 1, OomKill: 1},
		Pids:         &cg2.PidsStat{Current: 5},
	}, at)
	got, err := DecodeMetrics(m)
	if err != nil {
		t.Fatal(err)
	}
	want := Metrics{Timestamp: at, CPUNanos: 1_250_000_000, MemoryUsage: 70 << 20, WorkingSet: 66 << 20,
		RSS: 65 << 20, MemoryLimit: 256 << 20, OOMKills: 1, Processes: 5}
	if got != want {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// Inactive file cache above usage (the counters are read one after the other) gives a working
// set of 0, not an underflow; missing sections give zeros.
func TestDecodeMetricsEdges(t *testing.T) {
	got, err := DecodeMetrics(metric(t, &cg2.Metrics{Memory: &cg2.MemoryStat{Usage: 1 << 20, InactiveFile: 2 << 20}}, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	if got.WorkingSet != 0 || got.CPUNanos != 0 || got.Processes != 0 {
		t.Errorf("got %+v", got)
	}
	if _, err := DecodeMetrics(&types.Metric{}); err == nil {
		t.Error("a metric without data decoded")
	}
	if _, err := DecodeMetrics(metric(t, &cg1.PidsStat{Current: 1}, time.Now())); err == nil {
		t.Error("a metric of an unknown type decoded")
	}
}
