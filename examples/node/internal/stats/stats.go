package stats

import (
	"context"
	"log/slog"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	statsv1alpha1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
	"k8s.io/utils/ptr"

	"github.com/podlife/podlife/podlife"
)

// Pod is a pod of the node whose usage a Summary samples.
type Pod struct {
	Ref statsv1alpha1.PodReference
	Pod *podlife.Pod
}

// Input is what a Summary is built from.
type Input struct {
	// NodeName is the Node's name; StateDir the directory whose filesystem is the node's
	// (none if "").
	NodeName, StateDir string
	// Pods are the pods podlife runs for the node.
	Pods []Pod
	// Usage samples the usage of every pod of the Runtime at once (Runtime.Usage: one
	// containerd request lists the containers of all of them).
	Usage func(context.Context) ([]podlife.PodUsage, error)
	// Log receives why the usage could not be sampled.
	Log *slog.Logger
	// WithDisk adds what Pod.DiskUsage walks the disk for.
	WithDisk bool
}

// Summarizer answers the kubelet's Summary API (/stats/summary): the node's CPU and memory
// (the root cgroup, hostUsage) and filesystem, and for each pod podlife runs its running
// containers' CPU (cumulative and, from the previous request's sample, a rate), memory
// (working set, RSS, usage), start times, its network's interfaces, processes and ephemeral
// storage (logs and on-disk volumes, Pod.DiskUsage). A pod whose usage cannot be sampled is
// listed without it. It keeps the previous CPU samples the rates are computed from; it is
// safe for concurrent use and the zero value is ready.
type Summarizer struct {
	rates rateCache
}

// Summary builds the Summary of in.
func (s *Summarizer) Summary(ctx context.Context, in Input) *statsv1alpha1.Summary {
	now := time.Now()
	defer s.rates.prune(now)
	out := &statsv1alpha1.Summary{Node: s.nodeStats(in), Pods: []statsv1alpha1.PodStats{}}
	var sampled map[string]podlife.PodUsage // by pod UID
	if len(in.Pods) > 0 {
		sampled = sampleAll(ctx, in)
	}
	for _, sp := range in.Pods {
		out.Pods = append(out.Pods, s.podStats(ctx, sp, sampled, in.WithDisk))
	}
	return out
}

// sampleAll samples the usage of every pod at once, by podlife pod UID; nil if it fails.
func sampleAll(ctx context.Context, in Input) map[string]podlife.PodUsage {
	all, err := in.Usage(ctx)
	if err != nil {
		in.Log.Debug("pods' usage", "err", err)
		return nil
	}
	out := make(map[string]podlife.PodUsage, len(all))
	for _, u := range all {
		out[u.UID] = u
	}
	return out
}

// nodeStats is the node's part of the summary.
func (s *Summarizer) nodeStats(in Input) statsv1alpha1.NodeStats {
	h := readHostUsage()
	ns := statsv1alpha1.NodeStats{NodeName: in.NodeName, StartTime: metav1.NewTime(h.bootTime)}
	t := metav1.NewTime(h.at)
	if h.cpuOK {
		ns.CPU = &statsv1alpha1.CPUStats{Time: t, UsageCoreNanoSeconds: ptr.To(h.cpuNanos),
			UsageNanoCores: s.rates.rate("node", 0, h.at, h.cpuNanos)}
	}
	if h.memOK {
		ns.Memory = &statsv1alpha1.MemoryStats{Time: t, UsageBytes: ptr.To(h.usage),
			WorkingSetBytes: ptr.To(h.workingSet), RSSBytes: ptr.To(h.rss)}
		if h.total > 0 {
			ns.Memory.AvailableBytes = ptr.To(sub0(h.total, h.workingSet))
		}
	}
	if in.WithDisk && in.StateDir != "" {
		if total, avail, ok := DiskSpace(in.StateDir); ok {
			ns.Fs = &statsv1alpha1.FsStats{Time: t, CapacityBytes: ptr.To(uint64(total)),
				AvailableBytes: ptr.To(uint64(avail)), UsedBytes: ptr.To(uint64(total - avail))}
		}
	}
	return ns
}

// podStats is one pod's part of the summary, its usage from sampled (by podlife pod UID).
func (s *Summarizer) podStats(ctx context.Context, sp Pod, sampled map[string]podlife.PodUsage, withDisk bool) statsv1alpha1.PodStats {
	st := sp.Pod.Status()
	ps := statsv1alpha1.PodStats{PodRef: sp.Ref, StartTime: metav1.NewTime(st.StartTime),
		Containers: []statsv1alpha1.ContainerStats{}}
	if u, ok := sampled[sp.Pod.UID()]; ok {
		s.usageStats(&ps, st, u)
	}
	if withDisk {
		if du, err := sp.Pod.DiskUsage(ctx); err == nil {
			t := metav1.NewTime(time.Now())
			ps.EphemeralStorage = &statsv1alpha1.FsStats{Time: t, UsedBytes: ptr.To(du.Logs + du.Volumes + du.WritableLayers)}
		}
	}
	return ps
}

// usageStats fills the pod's containers, CPU, memory, processes and network from its usage.
func (s *Summarizer) usageStats(ps *statsv1alpha1.PodStats, st podlife.PodStatus, u podlife.PodUsage) {
	started := startTimes(st)
	var cpu, rate, ws, usage, rss, procs uint64
	allRates := len(u.Containers) > 0
	for _, cu := range u.Containers {
		t := metav1.NewTime(cu.Timestamp)
		nanos := uint64(cu.CPU)
		r := s.rates.rate(ps.PodRef.UID+"/"+cu.Name, cu.Attempt, cu.Timestamp, nanos)
		cs := statsv1alpha1.ContainerStats{
			Name:      cu.Name,
			StartTime: metav1.NewTime(started[cu.Name]),
			CPU:       &statsv1alpha1.CPUStats{Time: t, UsageCoreNanoSeconds: ptr.To(nanos), UsageNanoCores: r},
			Memory: &statsv1alpha1.MemoryStats{Time: t, UsageBytes: ptr.To(cu.MemoryUsage),
				WorkingSetBytes: ptr.To(cu.MemoryWorkingSet), RSSBytes: ptr.To(cu.MemoryRSS)},
		}
		if cu.MemoryLimit != 0 && cu.MemoryLimit < 1<<62 { // no limit reads as a huge value
			cs.Memory.AvailableBytes = ptr.To(sub0(cu.MemoryLimit, cu.MemoryWorkingSet))
		}
		ps.Containers = append(ps.Containers, cs)
		cpu += nanos
		ws += cu.MemoryWorkingSet
		usage += cu.MemoryUsage
		rss += cu.MemoryRSS
		procs += cu.Processes
		if r == nil {
			allRates = false
		} else {
			rate += *r
		}
	}
	t := metav1.NewTime(u.Timestamp)
	if len(u.Containers) > 0 {
		ps.CPU = &statsv1alpha1.CPUStats{Time: t, UsageCoreNanoSeconds: ptr.To(cpu)}
		if allRates {
			ps.CPU.UsageNanoCores = ptr.To(rate)
		}
		ps.Memory = &statsv1alpha1.MemoryStats{Time: t, UsageBytes: ptr.To(usage), WorkingSetBytes: ptr.To(ws), RSSBytes: ptr.To(rss)}
		ps.ProcessStats = &statsv1alpha1.ProcessStats{ProcessCount: ptr.To(procs)}
	}
	if n := u.Network; n != nil {
		ns := &statsv1alpha1.NetworkStats{Time: t}
		for _, i := range n.Interfaces {
			if i.Name == "lo" {
				continue
			}
			is := statsv1alpha1.InterfaceStats{Name: i.Name, RxBytes: ptr.To(i.RxBytes), RxErrors: ptr.To(i.RxErrors),
				TxBytes: ptr.To(i.TxBytes), TxErrors: ptr.To(i.TxErrors)}
			ns.Interfaces = append(ns.Interfaces, is)
			if i.Name == "eth0" || ns.Name == "" { // the kubelet's default interface
				ns.InterfaceStats = is
			}
		}
		ps.Network = ns
	}
}

// startTimes maps the pod's running containers to their start times.
func startTimes(st podlife.PodStatus) map[string]time.Time {
	out := map[string]time.Time{}
	for _, list := range [][]podlife.ContainerStatus{st.InitContainerStatuses, st.ContainerStatuses, st.EphemeralContainerStatuses} {
		for _, cs := range list {
			if r := cs.State.Running; r != nil {
				out[cs.Name] = r.StartedAt
			}
		}
	}
	return out
}
