package record

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"encoding/json"
	"time"
)

// DeadlineUpdate returns an adopter's spec and its recorded form with the deadline the pod
// started with, and the deadline set on the running pod since (nil: none), given the pod's
// record. An adopter's spec may carry an update of the deadline (set from unset, or shortened:
// the spec as an API server holds it after Pod.SetActiveDeadline, or after an update made while
// no manager ran): it is compared with the record's fingerprints, and recorded, with the
// deadline it started with, which the record's spec keeps; the updated deadline applies when it
// is shorter than the one the record has. Any other difference is left to the adopter's spec check.
func DeadlineUpdate(spec, recorded PodSpec, rec Record) (PodSpec, PodSpec, *time.Duration) {
	set, given := rec.ActiveDeadline, recorded.ActiveDeadline
	var started struct{ ActiveDeadline *time.Duration }
	if given == nil || len(rec.Spec) == 0 || json.Unmarshal(rec.Spec, &started) != nil {
		return spec, recorded, set
	}
	orig := started.ActiveDeadline
	if orig != nil && *given >= *orig {
		return spec, recorded, set // the deadline it started with, or not an update the API server allows
	}
	spec.ActiveDeadline, recorded.ActiveDeadline = orig, orig
	if set == nil || *given < *set {
		set = given
	}
	return spec, recorded, set
}
