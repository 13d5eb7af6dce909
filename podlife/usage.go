package podlife

import (
	"context"
	"strconv"

	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/usage"
)

// PodUsage is what a pod's running containers use, sampled at one moment (see Pod.Usage). Its
// fields and methods are documented at [usage.PodUsage].
type PodUsage = usage.PodUsage

// ContainerUsage is what one running container uses: its cgroup's counters (cgroup v1 or v2),
// read from the cgroup's files (containerd's task metrics where they cannot be read so, see
// Pod.Usage). Its fields are documented at [usage.ContainerUsage].
type ContainerUsage = usage.ContainerUsage

// NetworkUsage is the traffic of a pod's network namespace: the counters of its interfaces
// other than loopback, summed, since the interfaces were created (the pod's start). Its fields
// are documented at [usage.NetworkUsage].
type NetworkUsage = usage.NetworkUsage

// InterfaceUsage is the counters of one network interface (/proc/net/dev).
type InterfaceUsage = usage.InterfaceUsage

// CPURate is the CPU the container used between two samples of it, in cores (1.0 is one core
// busy all the time), what `kubectl top` shows. It is 0, and ok false, if the samples are not
// of the same attempt of the same container or not in time order: a restarted container's
// counter starts again, and the kubelet gives no rate across it either.
func CPURate(prev, cur ContainerUsage) (cores float64, ok bool) {
	return usage.CPURate(prev, cur)
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
	rec, err := p.rt.readRecord(p.name)
	if err != nil {
		return PodUsage{}, err
	}
	pod := usage.Pod{Name: p.name, UID: rec.UID, HostNetwork: rec.HostNetwork}
	return usage.SamplePod(p.rt.ctx(ctx), usageSource{p.rt.tasks}, p.rt.log, pod)
}

// usageSource is the Runtime's containerd seam as package usage needs it.
type usageSource struct{ tasks tasks.Runtime }

// Containers lists the containers of the pod podUID ("": of every pod) by their labels.
func (s usageSource) Containers(ctx context.Context, podUID string) ([]usage.Container, error) {
	var found []tasks.Found
	var err error
	if podUID == "" {
		found, err = s.tasks.Containers(ctx, nil, labelPodUID, labelContainer)
	} else {
		found, err = s.tasks.Containers(ctx, map[string]string{labelPodUID: podUID}, labelContainer)
	}
	if err != nil {
		return nil, err
	}
	out := make([]usage.Container, len(found))
	for i, f := range found {
		attempt, _ := strconv.Atoi(f.Labels[labelAttempt])
		out[i] = usage.Container{ID: f.ID, PodUID: f.Labels[labelPodUID], Name: f.Labels[labelContainer],
			Attempt: attempt, Pause: f.Labels[labelContainer] == pauseNameInPod}
	}
	return out, nil
}

// Sample reads the tasks' state and metrics (tasks.Runtime.Sample).
func (s usageSource) Sample(ctx context.Context, ids []string) (map[string]ctrd.Sample, error) {
	return s.tasks.Sample(ctx, ids)
}
