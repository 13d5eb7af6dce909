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
