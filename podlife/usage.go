package podlife

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// PodUsage is what a pod's running containers use, sampled at one moment (see Pod.Usage).
type PodUsage struct {
	// Name is the pod's name.
	Name string
	// UID is the pod's UID (a pod removed and run again under its name has another).
	UID string
	// Timestamp is when the sample was taken.
	Timestamp time.Time
	// Containers are its running containers (init, app and ephemeral; not the pause), sorted
	// by name. A container that is not running has no usage: it is left out.
	Containers []ContainerUsage
	// Network is the traffic of the pod's network namespace, nil for a HostNetwork pod or one
	// with no running container to read it from.
	Network *NetworkUsage
}

// ContainerUsage is what one running container uses: its cgroup's counters (cgroup v1 or v2),
// read from the cgroup's files (containerd's task metrics where they cannot be read so, see
// Pod.Usage).
type ContainerUsage struct {
	// Name is the container's name in its pod.
	Name string
	// Attempt is the attempt the sample is of (0 for the first run, see
	// ContainerStatus.RestartCount): a counter starts again from 0 when the container
	// restarts, as the kubelet's do.
	Attempt int
	// Timestamp is when the cgroup was read.
	Timestamp time.Time
	// CPU is the CPU time (user and system, all cores) this attempt used since it started: a
	// cumulative counter (container_cpu_usage_seconds_total). See CPURate for a rate.
	CPU time.Duration
	// MemoryWorkingSet is the kubelet's working set, the memory the kubelet evicts on and
	// `kubectl top` shows: usage less the inactive file cache (v1 total_inactive_file, v2
	// inactive_file), in bytes.
	MemoryWorkingSet uint64
	// MemoryUsage is all the memory the cgroup is charged for, page cache included, in bytes.
	MemoryUsage uint64
	// MemoryRSS is the anonymous memory (v1 total_rss, v2 anon), in bytes.
	MemoryRSS uint64
	// MemoryLimit is the cgroup's memory limit in bytes (0 if none is known; a very large
	// value means unlimited).
	MemoryLimit uint64
	// OOMKills counts the processes of this attempt the kernel's OOM killer killed (a kill of
	// the main process ends the attempt: see ContainerStatus's OOMKilled reason).
	OOMKills uint64
	// Processes is the number of processes (threads included) in the container.
	Processes uint64
}

// NetworkUsage is the traffic of a pod's network namespace: the counters of its interfaces
// other than loopback, summed, since the interfaces were created (the pod's start).
type NetworkUsage struct {
	RxBytes, RxPackets, RxErrors, RxDropped uint64
	TxBytes, TxPackets, TxErrors, TxDropped uint64
	// Interfaces are the counters of each interface, loopback included, sorted by name.
	Interfaces []InterfaceUsage
}

// InterfaceUsage is the counters of one network interface (/proc/net/dev).
type InterfaceUsage struct {
	Name                                    string
	RxBytes, RxPackets, RxErrors, RxDropped uint64
	TxBytes, TxPackets, TxErrors, TxDropped uint64
}

// CPU is the sum of its containers' CPU time.
func (u PodUsage) CPU() time.Duration {
	var sum time.Duration
	for _, c := range u.Containers {
		sum += c.CPU
	}
	return sum
}

// MemoryWorkingSet is the sum of its containers' working sets.
func (u PodUsage) MemoryWorkingSet() uint64 {
	var sum uint64
	for _, c := range u.Containers {
		sum += c.MemoryWorkingSet
	}
	return sum
}

// Container returns the usage of the named container, false if it is not in the sample.
func (u PodUsage) Container(name string) (ContainerUsage, bool) {
	for _, c := range u.Containers {
		if c.Name == name {
			return c, true
		}
	}
	return ContainerUsage{}, false
}

// CPURate is the CPU the container used between two samples of it, in cores (1.0 is one core
// busy all the time), what `kubectl top` shows. It is 0, and ok false, if the samples are not
// of the same attempt of the same container or not in time order: a restarted container's
// counter starts again, and the kubelet gives no rate across it either.
func CPURate(prev, cur ContainerUsage) (cores float64, ok bool) {
	dt := cur.Timestamp.Sub(prev.Timestamp)
	if prev.Name != cur.Name || prev.Attempt != cur.Attempt || dt <= 0 || cur.CPU < prev.CPU {
		return 0, false
	}
	return float64(cur.CPU-prev.CPU) / float64(dt), true
}

// Usage samples what the pod's running containers use: CPU time, memory, OOM kills and
// processes of each, and the traffic of the pod's network. It works whichever process manages
// the pod, or none: it reads containerd and the containers' cgroups (and /proc/<pid>/net/dev of
// one of its containers' processes), not the pod's worker. A sample costs a containerd request
// that lists the pod's containers (containerd reads every container record to answer it),
// then the few cgroup files of each running container: a container not seen running before
// costs a request for its task's state, and one whose cgroup cannot be read from here is
// asked of containerd's task metrics (docs/benchmarks.md gives the CPU time). To sample many
// pods, Runtime.Usage lists the containers once for all of them.
// The error wraps ErrNotFound if the state directory has no such pod, ErrUnavailable if
// containerd does not answer, and ErrClosed once the Runtime is closed.
func (p *Pod) Usage(ctx context.Context) (PodUsage, error) {
	if err := p.open(); err != nil {
		return PodUsage{}, err
	}
	return p.rt.podUsage(ctx, p.name)
}

// podUsage samples the named pod's usage (see Pod.Usage).
func (r *Runtime) podUsage(ctx context.Context, name string) (PodUsage, error) {
	rec, err := r.readRecord(name)
	if err != nil {
		return PodUsage{}, err
	}
	ctx = r.ctx(ctx)
	found, err := r.tasks.Containers(ctx, map[string]string{labelPodUID: rec.UID}, LabelContainer)
	if err != nil {
		return PodUsage{}, fmt.Errorf("pod %q: usage: %w", name, err)
	}
	samples, err := r.tasks.Sample(ctx, sampledIDs(found))
	if err != nil {
		return PodUsage{}, fmt.Errorf("pod %q: usage: %w", name, err)
	}
	return r.usageOf(name, rec, found, samples), nil
}

// sampledIDs are the IDs of the containers to sample: not the pauses, which have nothing to
// measure (every container is in its pod's network namespace, whose counters are read from the
// first running one).
func sampledIDs(found []tasks.Found) []string {
	ids := make([]string, 0, len(found))
	for _, f := range found {
		if f.Labels[LabelContainer] != pauseNameInPod {
			ids = append(ids, f.ID)
		}
	}
	return ids
}

// usageOf is the usage of the pod name (its record rec) from its containers found and their
// samples.
func (r *Runtime) usageOf(name string, rec podRecord, found []tasks.Found, samples map[string]ctrd.Sample) PodUsage {
	out := PodUsage{Name: name, UID: rec.UID, Timestamp: time.Now()}
	var netPid uint32
	current := map[string]int{} // container name -> index in out.Containers
	for _, f := range found {
		s, ok := samples[f.ID]
		if !ok || !s.Running {
			continue
		}
		cname := f.Labels[LabelContainer]
		if netPid == 0 {
			netPid = s.Pid
		}
		attempt, _ := strconv.Atoi(f.Labels[labelAttempt])
		cu := containerUsage(cname, attempt, s.Metrics)
		// Two running instances of one name (a restart caught half-way): the later attempt.
		if i, dup := current[cname]; dup {
			if out.Containers[i].Attempt < attempt {
				out.Containers[i] = cu
			}
			continue
		}
		current[cname] = len(out.Containers)
		out.Containers = append(out.Containers, cu)
	}
	sort.Slice(out.Containers, func(i, j int) bool { return out.Containers[i].Name < out.Containers[j].Name })
	if !rec.HostNetwork && netPid != 0 {
		if n, err := readNetDev(netPid); err == nil {
			out.Network = n
		} else {
			r.log.Debug("pod network usage", "pod", name, "err", err)
		}
	}
	return out
}

// containerUsage is a container's usage from its task's metrics.
func containerUsage(name string, attempt int, m ctrd.Metrics) ContainerUsage {
	return ContainerUsage{
		Name: name, Attempt: attempt, Timestamp: m.Timestamp,
		CPU:              time.Duration(m.CPUNanos),
		MemoryWorkingSet: m.WorkingSet, MemoryUsage: m.MemoryUsage, MemoryRSS: m.RSS,
		MemoryLimit: m.MemoryLimit, OOMKills: m.OOMKills, Processes: m.Processes,
	}
}
