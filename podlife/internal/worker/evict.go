package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/usage"

	"cmp"
	"context"
	"path/filepath"
	"time"

	"github.com/podlife/podlife/podlife/internal/eviction"
)

// ReasonEvicted is the kubelet's reason of an evicted pod and of its Warning event, also the
// event of a pod refused under disk pressure.
const ReasonEvicted Reason = eviction.Reason

const (
	defaultEvictionPeriod = 10 * time.Second // the kubelet's housekeeping period
	evictionGrace         = time.Second      // immediateEvictionGracePeriodSeconds
	measureTimeout        = 30 * time.Second // bounds one measurement (containerd may be away)
)

// enforceStorage measures the pod's local storage every Eviction.Period and evicts the pod
// when it is over one of its limits (eviction.Decide), until the pod stops.
func (p *Worker) enforceStorage() {
	period := cmp.Or(p.rt.Cfg.EvictionPeriod, defaultEvictionPeriod)
	limits := storageLimits(&p.spec)
	if period < 0 || !limits.Any() {
		return
	}
	timer := p.rt.Clock.NewTimer(period)
	defer timer.Stop()
	for {
		select {
		case <-timer.C():
		case <-p.stopped:
			return
		case <-p.rt.Closing:
			return
		}
		ctx, cancel := context.WithTimeout(p.lifeCtx, measureTimeout)
		u := p.storageUsage(ctx)
		cancel()
		if d, ok := eviction.Decide(limits, u); ok {
			p.evict(d)
			return
		}
		timer.Reset(period)
	}
}

// evict fails the pod as the kubelet's eviction manager does.
func (p *Worker) evict(d eviction.Decision) {
	var failed bool
	p.updateIf(func() bool {
		if p.stopping || p.phase == PhaseSucceeded || p.phase == PhaseFailed {
			return false
		}
		p.failReason = ReasonEvicted
		p.reason, p.message = ReasonEvicted, d.Message
		failed = true
		return true
	})
	if failed {
		p.emit("", EventWarning, ReasonEvicted, d.Message)
		p.stopWith(p.lifeCtx, evictionGrace, true, nil)
	}
}

// storageLimits are the spec's local storage limits.
func storageLimits(s *PodSpec) eviction.Limits {
	l := eviction.Limits{Pod: s.Resources.EphemeralStorageLimit}
	for _, v := range s.Volumes {
		if v.EmptyDir != nil && v.EmptyDir.Medium != MediumMemory {
			l.EmptyDirs = append(l.EmptyDirs, eviction.Volume{Name: v.Name, Limit: v.EmptyDir.SizeLimit})
		}
	}
	for i, cs := range [][]ContainerSpec{s.InitContainers, s.Containers} {
		for _, c := range cs {
			l.Containers = append(l.Containers, eviction.Container{Name: c.Name, Limit: c.Resources.EphemeralStorageLimit,
				Init: i == 0, Sidecar: c.RestartPolicy == RestartAlways})
		}
	}
	return l
}

// storageUsage measures the pod's disk-backed volumes, and each container's writable layer
// and logs (every attempt's); what cannot be measured counts as 0.
func (p *Worker) storageUsage(ctx context.Context) eviction.Usage {
	u := eviction.Usage{Volumes: map[string]uint64{}, Containers: map[string]uint64{}}
	for _, v := range p.spec.Volumes {
		if v.EmptyDir != nil && v.EmptyDir.Medium != MediumMemory || v.Files != nil && v.Files.Medium != MediumMemory {
			u.Volumes[v.Name], _ = usage.Disk(ctx, p.sandbox.VolumeDir(v.Name))
		}
	}
	for _, c := range append(append([]*Container{}, p.inits...), p.apps...) {
		n, _ := usage.Disk(ctx, filepath.Join(p.sandbox.Dir(), "logs", c.spec.Name))
		if id := c.ID(); id != "" && p.rt.Ctrd != nil {
			if layer, err := p.rt.Ctrd.SnapshotUsage(ctx, id); err == nil && layer > 0 {
				n += uint64(layer)
			}
		}
		u.Containers[c.spec.Name] = n
	}
	return u
}
