package podupdate

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"fmt"
	"math"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

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
