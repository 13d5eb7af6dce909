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

const measureTimeout = 30 * time.Second // bounds one measurement (containerd may be away)

// enforceStorage measures the pod's local storage every Eviction.Period and evicts the pod
// when it is over one of its limits (eviction.Decide), until the pod stops.
func (p *Worker) enforceStorage() {
	period := cmp.Or(p.host.Cfg.EvictionPeriod, eviction.DefaultPeriod)
	limits := eviction.PodLimits(&p.spec)
	if period < 0 || !limits.Any() {
		return
	}
	measure := func() eviction.Usage {
		ctx, cancel := context.WithTimeout(p.lifeCtx, measureTimeout)
		defer cancel()
		return p.storageUsage(ctx)
	}
	if d, ok := eviction.Watch(p.host.Clock, period, limits, measure, p.stopped, p.host.Closing); ok {
		p.evict(d)
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
		p.stopWith(p.lifeCtx, eviction.Grace, true, nil)
	}
}

// storageUsage measures the pod's disk-backed volumes, and each container's writable layer
// and logs (every attempt's); what cannot be measured counts as 0.
func (p *Worker) storageUsage(ctx context.Context) eviction.Usage {
	u := eviction.Usage{Volumes: map[string]uint64{}, Containers: map[string]uint64{}}
	for _, v := range eviction.DiskVolumes(&p.spec) {
		u.Volumes[v], _ = usage.Disk(ctx, p.sandbox.VolumeDir(v))
	}
	for _, c := range append(append([]*Container{}, p.inits...), p.apps...) {
		n, _ := usage.Disk(ctx, filepath.Join(p.sandbox.Dir(), "logs", c.spec.Name))
		if id := c.ID(); id != "" && p.host.Ctrd != nil {
			if layer, err := p.host.Ctrd.SnapshotUsage(ctx, id); err == nil && layer > 0 {
				n += uint64(layer)
			}
		}
		u.Containers[c.spec.Name] = n
	}
	return u
}
