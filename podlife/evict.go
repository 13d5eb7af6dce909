package podlife

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/podlife/podlife/podlife/internal/eviction"
)

// Eviction configures how podlife bounds local storage, as the kubelet's eviction manager does.
type Eviction struct {
	// Period is how often each pod with a storage limit (EmptyDirVolume.SizeLimit on disk,
	// Resources.EphemeralStorageLimit) has its usage measured; default 10 s, the kubelet's
	// housekeeping period. A pod over a limit is evicted: Warning event Evicted, its
	// containers stopped with a 1 s grace period (the kubelet's), phase Failed with reason
	// Evicted and the kubelet's message, no restart. A negative Period turns this off.
	Period time.Duration `json:"period,omitempty"`
	// NodefsAvailable is the hard eviction threshold on the state directory's filesystem, in
	// the kubelet's notation: a share ("10%", the default) or a quantity ("500Mi"); "0%"
	// turns it off. While less is available, Run refuses new pods with a *DiskPressureError
	// and a Warning event Evicted; running pods are not touched.
	NodefsAvailable string `json:"nodefsAvailable,omitempty"`
}

// DiskPressureError is Run's error for a pod refused because the state directory's
// filesystem has less space available than Config.Eviction.NodefsAvailable: it names the
// threshold and what is available (errors.Is(err, ErrDiskPressure) holds).
type DiskPressureError = eviction.PressureError

// ErrDiskPressure is matched by a *DiskPressureError.
var ErrDiskPressure = eviction.ErrDiskPressure

// reasonEvicted is the kubelet's reason of an evicted pod and of its Warning event, also the
// event of a pod refused under disk pressure.
const reasonEvicted Reason = eviction.Reason

const (
	defaultEvictionPeriod = 10 * time.Second // the kubelet's housekeeping period
	evictionGrace         = time.Second      // immediateEvictionGracePeriodSeconds
	measureTimeout        = 30 * time.Second // bounds one measurement (containerd may be away)
)

// admitDisk refuses a new pod while the state directory's filesystem is below the threshold.
func (r *Runtime) admitDisk(name string) error {
	t, err := eviction.ParseThreshold(r.cfg.Eviction.NodefsAvailable)
	if err != nil {
		return fmt.Errorf("pod %q: config.eviction: %w", name, err)
	}
	avail, capacity, err := eviction.Space(r.cfg.StateDir)
	if err != nil {
		r.log.Debug("state dir's free space not measured; admitting the pod", "pod", name, "err", err)
		return nil
	}
	if err := t.Check(r.cfg.StateDir, avail, capacity); err != nil {
		r.events.Publish(Event{Time: time.Now(), Pod: name, Type: EventWarning, Reason: reasonEvicted, Message: err.Error()})
		return fmt.Errorf("pod %q: %w", name, err)
	}
	return nil
}

// enforceStorage measures the pod's local storage every Eviction.Period and evicts the pod
// when it is over one of its limits (eviction.Decide), until the pod stops.
func (p *podWorker) enforceStorage() {
	period := cmp.Or(p.rt.cfg.Eviction.Period, defaultEvictionPeriod)
	limits := storageLimits(&p.spec)
	if period < 0 || !limits.Any() {
		return
	}
	timer := p.rt.clock.NewTimer(period)
	defer timer.Stop()
	for {
		select {
		case <-timer.C():
		case <-p.stopped:
			return
		case <-p.rt.closing:
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
func (p *podWorker) evict(d eviction.Decision) {
	var failed bool
	p.updateIf(func() bool {
		if p.stopping || p.phase == PhaseSucceeded || p.phase == PhaseFailed {
			return false
		}
		p.failReason = reasonEvicted
		p.reason, p.message = reasonEvicted, d.Message
		failed = true
		return true
	})
	if failed {
		p.emit("", EventWarning, reasonEvicted, d.Message)
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
func (p *podWorker) storageUsage(ctx context.Context) eviction.Usage {
	u := eviction.Usage{Volumes: map[string]uint64{}, Containers: map[string]uint64{}}
	for _, v := range p.spec.Volumes {
		if v.EmptyDir != nil && v.EmptyDir.Medium != MediumMemory || v.Files != nil && v.Files.Medium != MediumMemory {
			u.Volumes[v.Name], _ = diskUsage(ctx, p.sandbox.volumeDir(v.Name))
		}
	}
	for _, c := range append(append([]*Container{}, p.inits...), p.apps...) {
		n, _ := diskUsage(ctx, filepath.Join(p.sandbox.dir, "logs", c.spec.Name))
		if id := c.ID(); id != "" && p.rt.ctrd != nil {
			if layer, err := p.rt.ctrd.SnapshotUsage(ctx, id); err == nil && layer > 0 {
				n += uint64(layer)
			}
		}
		u.Containers[c.spec.Name] = n
	}
	return u
}
