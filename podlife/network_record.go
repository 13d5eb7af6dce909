package podlife

import "github.com/podlife/podlife/cni"

// networkRecord is what the pod records of the runtime's network (podRecord.Network), so that
// a process with another network configuration releases the pod's attachment with the pod's:
// nil when Config.Network cannot describe itself (not a cni.Recorder).
func (r *Runtime) networkRecord() *cni.Record {
	rc, ok := r.network.(cni.Recorder)
	if !ok {
		return nil
	}
	rec := rc.Record()
	return &rec
}

// recordedNetwork is the Network a pod recorded with rec (podRecord.Network) is detached from:
// the runtime's own if rec is nil (a record of an older manager, or of a Config.Network that
// cannot describe itself) or describes it, else one made from rec. If that cannot be made (its
// plugins are gone, say), the runtime's own, with a warning.
func (r *Runtime) recordedNetwork(rec *cni.Record, pod string) cni.Network {
	if rec == nil {
		return r.network
	}
	if own := r.networkRecord(); own != nil && own.Equal(*rec) {
		return r.network
	}
	nw, err := cni.FromRecord(*rec)
	if err != nil {
		r.log.Warn("the pod's recorded network is unusable: its network is released with this process's", "pod", pod, "err", err)
		return r.network
	}
	return nw
}
