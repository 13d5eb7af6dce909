package probe

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/podlife/podlife/hook"
)

// Kind is the kind of a probe.
type Kind int

const (
	// Startup probes gate the other probes until the container has started.
	Startup Kind = iota + 1
	// Readiness probes decide whether the container is ready.
	Readiness
	// Liveness probes restart the container when it fails.
	Liveness
)

// String returns "startup", "readiness" or "liveness".
func (k Kind) String() string {
	switch k {
	case Startup:
		return "startup"
	case Readiness:
		return "readiness"
	case Liveness:
		return "liveness"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// The kubelet's defaults, applied by [Spec.WithDefaults] to zero fields.
const (
	DefaultPeriod           = 10 * time.Second
	DefaultTimeout          = time.Second
	DefaultSuccessThreshold = 1
	DefaultFailureThreshold = 3
)

// Spec is a probe: a prober with the kubelet's timing fields. Zero fields take
// the kubelet's defaults (see [Spec.WithDefaults]).
type Spec struct {
	// Prober checks the container once.
	Prober Prober
	// InitialDelay is the time after the container has started before the
	// first probe (initialDelaySeconds; default 0).
	InitialDelay time.Duration
	// Period is the time between probes (periodSeconds; default 10s).
	Period time.Duration
	// Timeout bounds each probe (timeoutSeconds; default 1s).
	Timeout time.Duration
	// SuccessThreshold is the number of consecutive successes after a failure
	// for the result to become Success (successThreshold; default 1; must be 1
	// for liveness and startup probes).
	SuccessThreshold int
	// FailureThreshold is the number of consecutive failures for the result to
	// become Failure (failureThreshold; default 3).
	FailureThreshold int
	// FastPeriod, if set, is the period while the probe has not succeeded yet
	// (startup and readiness probes), so that a gated start does not wait a
	// whole Period; after the first success, Period applies. Zero (the
	// default) uses Period throughout. podlife's extension, like Compose's
	// healthcheck start_interval.
	FastPeriod time.Duration
	// TerminationGracePeriod, if set, replaces the pod's grace period when this
	// probe's failure kills the container (terminationGracePeriodSeconds;
	// liveness and startup probes only; must be positive).
	TerminationGracePeriod *time.Duration
}

// WithDefaults returns s with the kubelet's defaults in its zero fields:
// Period 10s, Timeout 1s, SuccessThreshold 1, FailureThreshold 3
// (InitialDelay's default is 0). Negative values are kept, for Validate to
// reject.
func (s Spec) WithDefaults() Spec {
	if s.Period == 0 {
		s.Period = DefaultPeriod
	}
	if s.Timeout == 0 {
		s.Timeout = DefaultTimeout
	}
	if s.SuccessThreshold == 0 {
		s.SuccessThreshold = DefaultSuccessThreshold
	}
	if s.FailureThreshold == 0 {
		s.FailureThreshold = DefaultFailureThreshold
	}
	return s
}

// FieldError describes one invalid field of a [Spec]. Field is the field's
// Kubernetes name relative to the probe, such as "periodSeconds" or
// "httpGet.port", so that a caller can prefix its own path (with
// k8s.io/apimachinery's field.Invalid, for instance).
type FieldError struct {
	// Field is the field's path relative to the probe.
	Field string
	// Value is the invalid value, or nil when the field is missing.
	Value any
	// Detail says what is wrong.
	Detail string
}

// Error returns "<Field>: Invalid value: <Value>: <Detail>", or
// "<Field>: Required value: <Detail>" when Value is nil.
func (e *FieldError) Error() string {
	if e.Value == nil {
		return fmt.Sprintf("%s: Required value: %s", e.Field, e.Detail)
	}
	return fmt.Sprintf("%s: Invalid value: %v: %s", e.Field, e.Value, e.Detail)
}

// Validate checks s, with defaults applied, as a probe of the given kind, as
// the Kubernetes API server does:
//
//   - a Prober is required, and one from this package must be well formed
//     (a non-empty command, a port between 1 and 65535, an HTTP or HTTPS scheme);
//   - durations and thresholds must not be negative (zero means the default);
//   - liveness and startup probes must have a SuccessThreshold of 1;
//   - TerminationGracePeriod must be positive, and must not be set on readiness
//     probes.
//
// It returns nil, or every problem found joined with [errors.Join]; each of
// them is a [*FieldError]. An unknown kind is reported as a plain error.
func (s Spec) Validate(kind Kind) error {
	switch kind {
	case Startup, Readiness, Liveness:
	default:
		return fmt.Errorf("probe: unknown kind %v", kind)
	}
	d := s.WithDefaults()
	var errs []error
	switch p := d.Prober.(type) {
	case nil:
		errs = append(errs, &FieldError{Field: "handler", Detail: "must specify a handler type"})
	case validator:
		errs = append(errs, p.validate()...)
	}
	const nonNegative = "must be greater than or equal to 0"
	for _, f := range []struct {
		name string
		v    time.Duration
	}{{"initialDelaySeconds", d.InitialDelay}, {"periodSeconds", d.Period}, {"timeoutSeconds", d.Timeout}, {"fastPeriod", d.FastPeriod}} {
		if f.v < 0 {
			errs = append(errs, &FieldError{Field: f.name, Value: f.v, Detail: nonNegative})
		}
	}
	if d.SuccessThreshold < 0 {
		errs = append(errs, &FieldError{Field: "successThreshold", Value: d.SuccessThreshold, Detail: nonNegative})
	} else if kind != Readiness && d.SuccessThreshold != 1 {
		errs = append(errs, &FieldError{Field: "successThreshold", Value: d.SuccessThreshold, Detail: "must be 1"})
	}
	if d.FailureThreshold < 0 {
		errs = append(errs, &FieldError{Field: "failureThreshold", Value: d.FailureThreshold, Detail: nonNegative})
	}
	if g := d.TerminationGracePeriod; g != nil {
		if kind == Readiness {
			errs = append(errs, &FieldError{Field: "terminationGracePeriodSeconds", Value: *g, Detail: "must not be set for readinessProbes"})
		} else if *g <= 0 {
			errs = append(errs, &FieldError{Field: "terminationGracePeriodSeconds", Value: *g, Detail: "must be greater than 0"})
		}
	}
	return errors.Join(errs...)
}

// Run probes t once with s.Prober, giving it a context bounded by the
// (defaulted) Timeout. It is what a worker calls every Period.
func (s Spec) Run(ctx context.Context, t hook.Target) (Result, string, error) {
	if s.Prober == nil {
		return Unknown, "", errors.New("probe: spec has no prober")
	}
	ctx, cancel := context.WithTimeout(ctx, s.WithDefaults().Timeout)
	defer cancel()
	return s.Prober.Probe(ctx, t)
}
