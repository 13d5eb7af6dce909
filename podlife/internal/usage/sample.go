package usage

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/podlife/podlife/podlife/internal/ctrd"
)

// Source is what sampling needs of containerd: the containers of pods and the state and
// metrics of their tasks. Package podlife gives its containerd seam, adapted.
type Source interface {
	// Containers lists the containers of the pod whose UID is podUID, or those of every pod
	// if podUID is "".
	Containers(ctx context.Context, podUID string) ([]Container, error)
	// Sample reads the state of the tasks of the containers ids and the metrics of those that
	// run (see ctrd.Client.Sample); a container with no task is not in the result.
	Sample(ctx context.Context, ids []string) (map[string]ctrd.Sample, error)
}

// Container is a containerd container of a pod, as its labels describe it.
type Container struct {
	// ID is the containerd container's ID.
	ID string
	// PodUID is the UID of its pod.
	PodUID string
	// Name is the container's name in its pod.
	Name string
	// Attempt is the attempt it runs (0 for the first run).
	Attempt int
	// Pause is set for a pod's pause container, which has nothing to measure.
	Pause bool
}

// Pod is a pod to sample, as its record describes it.
type Pod struct {
	Name, UID   string
	HostNetwork bool
}

// SamplePod samples the usage of pod (see podlife's Pod.Usage); log gets what could not be
// read of it (its network's counters).
func SamplePod(ctx context.Context, src Source, log *slog.Logger, pod Pod) (PodUsage, error) {
	found, err := src.Containers(ctx, pod.UID)
	if err != nil {
		return PodUsage{}, fmt.Errorf("pod %q: usage: %w", pod.Name, err)
	}
	samples, err := src.Sample(ctx, SampledIDs(found))
	if err != nil {
		return PodUsage{}, fmt.Errorf("pod %q: usage: %w", pod.Name, err)
	}
	return usageOf(log, pod, found, samples), nil
}

// SampleAll samples the usage of each of pods, in their order, with one listing of the
// containers for all of them (see podlife's Runtime.Usage). An error is returned unwrapped
// (the caller says what failed).
func SampleAll(ctx context.Context, src Source, log *slog.Logger, pods []Pod) ([]PodUsage, error) {
	if len(pods) == 0 {
		return nil, nil
	}
	byUID := map[string]int{} // pod UID -> index in pods
	for i, p := range pods {
		byUID[p.UID] = i
	}
	all, err := src.Containers(ctx, "")
	if err != nil {
		return nil, err
	}
	found := make([][]Container, len(pods))
	for _, f := range all {
		if i, ok := byUID[f.PodUID]; ok { // not another state directory's
			found[i] = append(found[i], f)
		}
	}
	var ids []string
	for _, fs := range found {
		ids = append(ids, SampledIDs(fs)...)
	}
	samples, err := src.Sample(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]PodUsage, len(pods))
	for i, p := range pods {
		out[i] = usageOf(log, p, found[i], samples)
	}
	return out, nil
}

// SampledIDs are the IDs of the containers to sample: not the pauses, which have nothing to
// measure (every container is in its pod's network namespace, whose counters are read from the
// first running one).
func SampledIDs(found []Container) []string {
	ids := make([]string, 0, len(found))
	for _, f := range found {
		if !f.Pause {
			ids = append(ids, f.ID)
		}
	}
	return ids
}

// usageOf is the usage of pod from its containers found and their samples.
func usageOf(log *slog.Logger, pod Pod, found []Container, samples map[string]ctrd.Sample) PodUsage {
	out := PodUsage{Name: pod.Name, UID: pod.UID, Timestamp: time.Now()}
	var netPid uint32
	current := map[string]int{} // container name -> index in out.Containers
	for _, f := range found {
		s, ok := samples[f.ID]
		if !ok || !s.Running {
			continue
		}
		if netPid == 0 {
			netPid = s.Pid
		}
		cu := containerUsage(f.Name, f.Attempt, s.Metrics)
		// Two running instances of one name (a restart caught half-way): the later attempt.
		if i, dup := current[f.Name]; dup {
			if out.Containers[i].Attempt < f.Attempt {
				out.Containers[i] = cu
			}
			continue
		}
		current[f.Name] = len(out.Containers)
		out.Containers = append(out.Containers, cu)
	}
	sort.Slice(out.Containers, func(i, j int) bool { return out.Containers[i].Name < out.Containers[j].Name })
	if !pod.HostNetwork && netPid != 0 {
		if n, err := readNetDev(netPid); err == nil {
			out.Network = n
		} else {
			log.Debug("pod network usage", "pod", pod.Name, "err", err)
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
