package podlife

import (
	"fmt"
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
