package main

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	statsv1alpha1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
	"k8s.io/utils/ptr"

	"github.com/podlife/podlife/podlife"
)

// statsPod is a pod of the node whose usage a stats request samples.
type statsPod struct {
	ref statsv1alpha1.PodReference
	p   *podlife.Pod
}

// GetStatsSummary answers the kubelet's Summary API (/stats/summary): the node's CPU and
// memory (the root cgroup, hostUsage) and filesystem, and for each pod podlife runs its
// running containers' CPU (cumulative and, from the previous request's sample, a rate),
// memory (working set, RSS, usage), start times, its network's interfaces, processes and
// ephemeral storage (logs and on-disk volumes, Pod.DiskUsage). A pod whose usage cannot be
// sampled is listed without it.
func (pr *provider) GetStatsSummary(ctx context.Context) (*statsv1alpha1.Summary, error) {
	return pr.summary(ctx, true), nil
}

// summary builds the Summary; withDisk adds what Pod.DiskUsage walks the disk for.
func (pr *provider) summary(ctx context.Context, withDisk bool) *statsv1alpha1.Summary {
	now := time.Now()
	defer pr.rates.prune(now)
	out := &statsv1alpha1.Summary{Node: pr.nodeStats(withDisk), Pods: []statsv1alpha1.PodStats{}}
	pods := pr.statsPods()
	var sampled map[string]podlife.PodUsage // by pod UID
	if len(pods) > 0 {
		sampled = pr.sampleAll(ctx)
	}
	for _, sp := range pods {
		out.Pods = append(out.Pods, pr.podStats(ctx, sp, sampled, withDisk))
	}
	return out
}

// sampleAll samples the usage of every pod of the Runtime at once (Runtime.Usage: one
// containerd request lists the containers of all of them), by podlife pod UID; nil if it fails.
func (pr *provider) sampleAll(ctx context.Context) map[string]podlife.PodUsage {
	all, err := pr.rt.Usage(ctx)
	if err != nil {
		pr.log.Debug("pods' usage", "err", err)
		return nil
	}
	out := make(map[string]podlife.PodUsage, len(all))
	for _, u := range all {
		out[u.UID] = u
	}
	return out
}

// statsPods lists the pods podlife runs for the node.
func (pr *provider) statsPods() []statsPod {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	out := make([]statsPod, 0, len(pr.pods))
	for _, e := range pr.pods {
		if e.p == nil {
			continue
		}
		out = append(out, statsPod{
			ref: statsv1alpha1.PodReference{Name: e.pod.Name, Namespace: e.pod.Namespace, UID: string(e.pod.UID)},
			p:   e.p,
		})
	}
	return out
}

// nodeStats is the node's part of the summary.
func (pr *provider) nodeStats(withDisk bool) statsv1alpha1.NodeStats {
	h := readHostUsage()
	ns := statsv1alpha1.NodeStats{NodeName: pr.nodeName, StartTime: metav1.NewTime(h.bootTime)}
	t := metav1.NewTime(h.at)
	if h.cpuOK {
		ns.CPU = &statsv1alpha1.CPUStats{Time: t, UsageCoreNanoSeconds: ptr.To(h.cpuNanos),
			UsageNanoCores: pr.rates.rate("node", 0, h.at, h.cpuNanos)}
	}
	if h.memOK {
		ns.Memory = &statsv1alpha1.MemoryStats{Time: t, UsageBytes: ptr.To(h.usage),
			WorkingSetBytes: ptr.To(h.workingSet), RSSBytes: ptr.To(h.rss)}
		if h.total > 0 {
			ns.Memory.AvailableBytes = ptr.To(sub0(h.total, h.workingSet))
		}
	}
	if withDisk && pr.stateDir != "" {
		if total, avail, ok := diskSpace(pr.stateDir); ok {
			ns.Fs = &statsv1alpha1.FsStats{Time: t, CapacityBytes: ptr.To(uint64(total)),
				AvailableBytes: ptr.To(uint64(avail)), UsedBytes: ptr.To(uint64(total - avail))}
		}
	}
	return ns
}

// podStats is one pod's part of the summary, its usage from sampled (by podlife pod UID).
func (pr *provider) podStats(ctx context.Context, sp statsPod, sampled map[string]podlife.PodUsage, withDisk bool) statsv1alpha1.PodStats {
	st := sp.p.Status()
	ps := statsv1alpha1.PodStats{PodRef: sp.ref, StartTime: metav1.NewTime(st.StartTime),
		Containers: []statsv1alpha1.ContainerStats{}}
	if u, ok := sampled[sp.p.UID()]; ok {
		pr.usageStats(&ps, st, u)
	}
	if withDisk {
		if du, err := sp.p.DiskUsage(ctx); err == nil {
			t := metav1.NewTime(time.Now())
			ps.EphemeralStorage = &statsv1alpha1.FsStats{Time: t, UsedBytes: ptr.To(du.Logs + du.Volumes + du.WritableLayers)}
		}
	}
	return ps
}

// usageStats fills the pod's containers, CPU, memory, processes and network from its usage.
func (pr *provider) usageStats(ps *statsv1alpha1.PodStats, st podlife.PodStatus, u podlife.PodUsage) {
	started := startTimes(st)
	var cpu, rate, ws, usage, rss, procs uint64
	allRates := len(u.Containers) > 0
	for _, cu := range u.Containers {
		t := metav1.NewTime(cu.Timestamp)
		nanos := uint64(cu.CPU)
		r := pr.rates.rate(ps.PodRef.UID+"/"+cu.Name, cu.Attempt, cu.Timestamp, nanos)
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
