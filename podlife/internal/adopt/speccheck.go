package adopt

import (
	"fmt"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/specfp"
	"github.com/podlife/podlife/podlife/internal/worker/record"
)

// CheckSpec compares an adopter's spec with the fingerprints rec keeps: keyed ones (this
// version's), else an older manager's unkeyed ones; a record without any, or keyed with a key
// the state dir no longer has, is adopted unchecked (logged). recorded is the spec's recorded
// form (podlife's recordedSpec), what records fingerprint; spec is it defaulted. A field
// matches if the record has the fingerprint of either: a record made by an older podlife/kube,
// which filled the API server's defaults in (imagePullPolicy, port protocols, probe timings,
// the grace period), matches the same manifest converted now, which leaves them to admission.
// A changed spec is a *api.SpecChangedError.
func (a *Adopter) CheckSpec(spec, recorded api.PodSpec, rec record.Record) error {
	h := a.Host()
	var key []byte
	var macs map[string]string
	var hash string
	switch {
	case rec.SpecMAC != "":
		k, err := h.SpecKey()
		if err != nil {
			return fmt.Errorf("pod %q: %w", spec.Name, err)
		}
		if rec.SpecKey != specfp.KeyID(k) {
			h.Log.Warn("the pod's spec fingerprint was made with another key than the state dir's "+specfp.KeyFile+": adopting it unchecked", "pod", spec.Name)
			return nil
		}
		key, macs, hash = k, rec.SpecMACs, rec.SpecMAC
	case rec.SpecHash != "":
		macs, hash = rec.SpecFields, rec.SpecHash
	default:
		return nil
	}
	given := specfp.Fields(recorded, key)
	if hash == specfp.Hash(given) {
		return nil
	}
	if diff := specfp.Mismatch(macs, given, specfp.Fields(spec, key)); len(diff) > 0 {
		return &api.SpecChangedError{Pod: spec.Name, Fields: diff}
	}
	return nil
}
