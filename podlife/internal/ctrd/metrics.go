package ctrd

import (
	"context"
	"fmt"
	"strconv"
	"time"

	cg1 "github.com/containerd/cgroups/v3/cgroup1/stats"
	cg2 "github.com/containerd/cgroups/v3/cgroup2/stats"
	"github.com/containerd/containerd/api/services/tasks/v1"
	"github.com/containerd/containerd/api/types"
	"github.com/containerd/containerd/api/types/task"
	"github.com/containerd/errdefs"
	"github.com/containerd/errdefs/pkg/errgrpc"
	"github.com/containerd/typeurl/v2"
)

// Metrics is what a task's cgroup (v1 or v2) says it uses, read from the cgroup's files
// (Sample) or from containerd's task metrics, in units of its own: nanoseconds and bytes.
type Metrics struct {
	// Timestamp is when containerd read the cgroup.
	Timestamp time.Time
	// CPUNanos is the CPU time the cgroup's processes used since it was created (user and
	// system, all cores).
	CPUNanos uint64
	// MemoryUsage is the memory the cgroup is charged for (page cache included).
	MemoryUsage uint64
	// WorkingSet is MemoryUsage less the inactive file cache, the kubelet's and cAdvisor's
	// working set (what memory eviction and `kubectl top` use); never below 0.
	WorkingSet uint64
	// RSS is the anonymous memory (v1 total_rss, v2 anon).
	RSS uint64
	// MemoryLimit is the cgroup's limit (0 if none is known).
	MemoryLimit uint64
	// OOMKills counts the processes the kernel's OOM killer killed in the cgroup (v1
	// memory.oom_control oom_kill, v2 memory.events oom_kill).
	OOMKills uint64
	// Processes is the number of tasks (threads included) in the cgroup (pids.current).
	Processes uint64
}

// Metrics returns the task's metrics (an error wrapping errdefs.ErrNotFound if it has no
// task any more).
func (t *Task) Metrics(ctx context.Context) (Metrics, error) {
	m, err := t.task.Metrics(ctx)
	if err != nil {
		return Metrics{}, err
	}
	return DecodeMetrics(m)
}

// DecodeMetrics decodes containerd's task metric: cgroup v1's or v2's statistics.
func DecodeMetrics(m *types.Metric) (Metrics, error) {
	if m == nil || m.Data == nil {
		return Metrics{}, fmt.Errorf("task metrics: no data")
	}
	v, err := typeurl.UnmarshalAny(m.Data)
	if err != nil {
		return Metrics{}, fmt.Errorf("task metrics: %w", err)
	}
	var out Metrics
	switch s := v.(type) {
	case *cg1.Metrics:
		out = decodeV1(s)
	case *cg2.Metrics:
		out = decodeV2(s)
	default:
		return Metrics{}, fmt.Errorf("task metrics: unknown type %T", v)
	}
	if m.Timestamp != nil {
		out.Timestamp = m.Timestamp.AsTime()
	}
	return out, nil
}

// decodeV1 reads cgroup v1's statistics (the hierarchical total_* counters: a container's
// cgroup has no children of its own, but they count them if it had).
func decodeV1(s *cg1.Metrics) Metrics {
	var out Metrics
	if u := s.GetCPU().GetUsage(); u != nil {
		out.CPUNanos = u.Total
	}
	if mem := s.GetMemory(); mem != nil {
		if u := mem.GetUsage(); u != nil {
			out.MemoryUsage = u.Usage
			out.MemoryLimit = u.Limit
		}
		out.RSS = mem.TotalRSS
		out.WorkingSet = workingSet(out.MemoryUsage, mem.TotalInactiveFile)
	}
	out.OOMKills = s.GetMemoryOomControl().GetOomKill()
	out.Processes = s.GetPids().GetCurrent()
	return out
}

// decodeV2 reads cgroup v2's statistics.
func decodeV2(s *cg2.Metrics) Metrics {
	var out Metrics
	out.CPUNanos = s.GetCPU().GetUsageUsec() * 1000
	if mem := s.GetMemory(); mem != nil {
		out.MemoryUsage = mem.Usage
		out.MemoryLimit = mem.UsageLimit
		out.RSS = mem.Anon
		out.WorkingSet = workingSet(mem.Usage, mem.InactiveFile)
	}
	out.OOMKills = s.GetMemoryEvents().GetOomKill()
	out.Processes = s.GetPids().GetCurrent()
	return out
}

// workingSet is usage less the inactive file cache, 0 if that is more (the kubelet's rule).
func workingSet(usage, inactiveFile uint64) uint64 {
	if inactiveFile >= usage {
		return 0
	}
	return usage - inactiveFile
}

// Sample is a task's state and, if it runs, its metrics.
type Sample struct {
	// Running is whether the task's process runs (its metrics are then set).
	Running bool
	// Pid is its process's PID in the host's PID namespace.
	Pid     uint32
	Metrics Metrics
}

// Sample reads the tasks of the containers ids (a container with no task is left out of the
// result), and the counters of those that run from their cgroup's files: the cgroup of the
// task's process, found in /proc/<pid>/cgroup, whose name must be the container's ID. A task
// sampled running before whose process is still in its container's cgroup is running, with the
// same process (a container's processes end with its first one): it costs no containerd request.
// Any other task costs a state request (containerd asks its shim). The running tasks whose
// cgroup cannot be read so (podlife in a PID namespace or cgroup layout of its own) are asked
// of containerd in one metrics request, which asks each task's shim; the shim reads every
// controller's files, which costs several times as much CPU.
func (c *Client) Sample(ctx context.Context, ids []string) (map[string]Sample, error) {
	out := make(map[string]Sample, len(ids))
	var filters []string
	for _, id := range ids {
		if pid, ok := c.running.get(id); ok {
			if m, err := c.cgroups.read(id, pid); err == nil {
				out[id] = Sample{Running: true, Pid: pid, Metrics: m}
				continue
			}
			c.running.forget(id)
		}
		resp, err := c.c.TaskService().Get(ctx, &tasks.GetRequest{ContainerID: id})
		if err != nil {
			if errdefs.IsNotFound(errgrpc.ToNative(err)) {
				continue
			}
			return nil, errgrpc.ToNative(err)
		}
		p := resp.GetProcess()
		s := Sample{Pid: p.GetPid(), Running: p.GetStatus() == task.Status_RUNNING}
		if s.Running {
			if m, err := c.cgroups.read(id, s.Pid); err == nil {
				s.Metrics = m
				c.running.set(id, s.Pid)
			} else {
				filters = append(filters, "id=="+strconv.Quote(id))
			}
		}
		out[id] = s
	}
	if len(filters) == 0 {
		return out, nil
	}
	resp, err := c.c.TaskService().Metrics(ctx, &tasks.MetricsRequest{Filters: filters})
	if err != nil {
		return nil, errgrpc.ToNative(err)
	}
	for _, m := range resp.GetMetrics() {
		s, ok := out[m.GetID()]
		if !ok {
			continue
		}
		if s.Metrics, err = DecodeMetrics(m); err != nil {
			return nil, fmt.Errorf("task %s: %w", m.GetID(), err)
		}
		out[m.GetID()] = s
	}
	return out, nil
}
