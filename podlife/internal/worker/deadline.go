package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"encoding/json"
	"fmt"
	"math"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// A running pod's activeDeadlineSeconds may be updated, as the API server allows it: set when it
// was unset, or shortened. The deadline set so (Pod.SetActiveDeadline) is kept beside the spec:
// in the worker (deadlineSet) and in pod.json (Record.ActiveDeadline); the spec, its
// recorded form and its fingerprints stay those the pod started with, so that an adopter given
// either the spec as started or as updated neither reports a changed spec nor loses the deadline
// (DeadlineUpdate).

// SetActiveDeadline sets the pod's active deadline (activeDeadlineSeconds), counted from the
// pod's start as the spec's is: the one update of a running pod's spec the API server allows.
// d must be positive, and shorter than the deadline in effect, if any. enforceDeadline follows
// the change: a deadline already past fails the pod at once (DeadlineExceeded). The new deadline
// is recorded, so that an adopter keeps it.
func (p *Worker) SetActiveDeadline(d time.Duration) error {
	if !p.do(func() {}) {
		return fmt.Errorf("set active deadline: pod %q: %w", p.name, ErrClosed)
	}
	p.deadlineMu.Lock()
	if err := CheckDeadlineUpdate(p.name, p.activeDeadlineLocked(), d); err != nil {
		p.deadlineMu.Unlock()
		return fmt.Errorf("set active deadline: %w", err)
	}
	p.deadlineSet = &d
	p.deadlineMu.Unlock()
	select {
	case p.deadlineChanged <- struct{}{}:
	default: // a change is pending already: enforceDeadline reads the latest
	}
	if err := p.writeRecord(); err != nil {
		return fmt.Errorf("set active deadline: pod %q: in effect, but not recorded (an adopter would not keep it): %w", p.name, err)
	}
	return nil
}

// activeDeadline is the deadline in effect: the one set on the running pod, else the spec's.
func (p *Worker) activeDeadline() *time.Duration {
	p.deadlineMu.Lock()
	defer p.deadlineMu.Unlock()
	return p.activeDeadlineLocked()
}

func (p *Worker) activeDeadlineLocked() *time.Duration {
	if p.deadlineSet != nil {
		return p.deadlineSet
	}
	return p.spec.ActiveDeadline
}

// CheckDeadlineUpdate checks the update of a pod's deadline from cur (nil: none) to d, with the
// API server's rules (ValidatePodUpdate) and words.
func CheckDeadlineUpdate(pod string, cur *time.Duration, d time.Duration) error {
	path := field.NewPath("spec", "activeDeadlineSeconds")
	var errs field.ErrorList
	switch {
	case d <= 0 || d > math.MaxInt32*time.Second:
		errs = append(errs, field.Invalid(path, d.String(), fmt.Sprintf("must be between 1s and %v", math.MaxInt32*time.Second)))
	case cur != nil && d > *cur:
		errs = append(errs, field.Invalid(path, d.String(), fmt.Sprintf("must be less than or equal to previous value (%v): a running pod's deadline may only be set or shortened", *cur)))
	}
	if len(errs) > 0 {
		return &ValidationError{Pod: pod, Errs: errs}
	}
	return nil
}

// DeadlineUpdate returns an adopter's spec and its recorded form with the deadline the pod
// started with, and the deadline set on the running pod since (nil: none), given the pod's
// record. An adopter's spec may carry an update of the deadline (set from unset, or shortened:
// the spec as an API server holds it after Pod.SetActiveDeadline, or after an update made while
// no manager ran): it is compared with the record's fingerprints, and recorded, with the
// deadline it started with, which the record's spec keeps; the updated deadline applies when it
// is shorter than the one the record has. Any other difference is left to checkSpec.
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
