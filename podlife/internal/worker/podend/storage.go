package podend

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"cmp"
	"context"
	"path/filepath"
	"time"

	"github.com/podlife/podlife/internal/clock"
	"github.com/podlife/podlife/podlife/internal/eviction"
	"github.com/podlife/podlife/podlife/internal/usage"
)

// measureTimeout bounds one measurement (containerd may be away).
const measureTimeout = 30 * time.Second

// Storage is what the watch of a pod's local storage reads: its spec (its limits and
// disk-backed volumes), where its volumes and logs are, and its containers.
type Storage struct {
	Spec *PodSpec
	// VolumeDir is the directory of the pod's volume of that name; Dir the pod's directory,
	// whose logs/<container> directories hold each container's logs (every attempt's).
	VolumeDir func(name string) string
	Dir       func() string
	// Containers are the pod's init and app containers, in spec order.
	Containers []Container
	// Layer, if not nil, measures the writable layer of the container of that containerd ID.
	Layer func(ctx context.Context, id string) (int64, error)
}

// Container is one container of the pod, as the watch measures it.
type Container struct {
	Name string
	// ID is the containerd ID of its current instance ("" until created).
	ID func() string
}

// Watch measures the pod's local storage every period (0: eviction.DefaultPeriod; negative:
// never) and returns the decision to evict it once it is over one of its limits
// (eviction.Decide); false once stopped or closing is closed, or at once if there is no limit
// to watch. ctx bounds each measurement.
func (s Storage) Watch(ctx context.Context, clk clock.Clock, period time.Duration, stopped, closing <-chan struct{}) (eviction.Decision, bool) {
	period = cmp.Or(period, eviction.DefaultPeriod)
	limits := eviction.PodLimits(s.Spec)
	if period < 0 || !limits.Any() {
		return eviction.Decision{}, false
	}
	measure := func() eviction.Usage {
		ctx, cancel := context.WithTimeout(ctx, measureTimeout)
		defer cancel()
		return s.Usage(ctx)
	}
	return eviction.Watch(clk, period, limits, measure, stopped, closing)
}

// Usage measures the pod's disk-backed volumes, and each container's writable layer and logs;
// what cannot be measured counts as 0.
func (s Storage) Usage(ctx context.Context) eviction.Usage {
	u := eviction.Usage{Volumes: map[string]uint64{}, Containers: map[string]uint64{}}
	for _, v := range eviction.DiskVolumes(s.Spec) {
		u.Volumes[v], _ = usage.Disk(ctx, s.VolumeDir(v))
	}
	for _, c := range s.Containers {
		n, _ := usage.Disk(ctx, filepath.Join(s.Dir(), "logs", c.Name))
		if id := c.ID(); id != "" && s.Layer != nil {
			if layer, err := s.Layer(ctx, id); err == nil && layer > 0 {
				n += uint64(layer)
			}
		}
		u.Containers[c.Name] = n
	}
	return u
}
