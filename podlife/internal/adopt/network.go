package adopt

import "github.com/podlife/podlife/cni"

// recordedNetwork is the Network a pod recorded with rec (record.Record's Network) is detached
// from: the Runtime's own if rec is nil (a record of an older manager, or of a Config.Network
// that cannot describe itself) or describes it, else one made from rec. If that cannot be made
// (its plugins are gone, say), the Runtime's own, with a warning.
func (a *Adopter) recordedNetwork(rec *cni.Record, pod string) cni.Network {
	h := a.Host()
	if rec == nil {
		return h.Network
	}
	if own := h.NetworkRecord(); own != nil && own.Equal(*rec) {
		return h.Network
	}
	nw, err := cni.FromRecord(*rec)
	if err != nil {
		h.Log.Warn("the pod's recorded network is unusable: its network is released with this process's", "pod", pod, "err", err)
		return h.Network
	}
	return nw
}
