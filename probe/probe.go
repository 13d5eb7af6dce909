package probe

import (
	"context"
	"fmt"

	"github.com/podlife/podlife/hook"
)

// Result is the outcome of one probe.
type Result int

const (
	// Unknown means the probe could not decide, for instance because the
	// prober itself failed. The kubelet treats it as Failure.
	Unknown Result = iota
	// Success means the container passed the probe.
	Success
	// Failure means the container failed the probe.
	Failure
	// Warning means the container passed the probe with a remark that the
	// caller should report (as a Warning "ProbeWarning" event); it counts as
	// Success.
	Warning
)

var resultNames = [...]string{Unknown: "unknown", Success: "success", Failure: "failure", Warning: "warning"}

// String returns "unknown", "success", "failure" or "warning".
func (r Result) String() string {
	if r >= 0 && int(r) < len(resultNames) {
		return resultNames[r]
	}
	return fmt.Sprintf("Result(%d)", int(r))
}

// Prober checks a container once.
type Prober interface {
	// Probe returns the result and a message: the command's output, the
	// response body, or the reason of a failure. A failed check is reported as
	// Failure with a nil error; a non-nil error means that the prober itself
	// failed (it could not run the check) and comes with Unknown. The kubelet
	// retries a prober error up to 3 times before giving up on that period.
	Probe(ctx context.Context, t hook.Target) (Result, string, error)
}

// ProberFunc adapts a Go function to the [Prober] interface.
type ProberFunc func(ctx context.Context, t hook.Target) (Result, string, error)

// Probe calls f(ctx, t).
func (f ProberFunc) Probe(ctx context.Context, t hook.Target) (Result, string, error) {
	return f(ctx, t)
}

// Describe returns a short human description of p for logs and status, such as
// "exec [cat /tmp/ready]", "httpGet http://:8080/healthz", "tcpSocket :5432"
// or "func". It never includes header values. A Prober of another type is
// described by its String method if it has one, or else by its type.
func Describe(p Prober) string {
	switch p := p.(type) {
	case nil:
		return "<nil>"
	case fmt.Stringer:
		return p.String()
	case ProberFunc:
		return "func"
	default:
		return fmt.Sprintf("%T", p)
	}
}

// validator is implemented by the probers of this package.
type validator interface{ validate() []error }

// firstError returns the first error of v.validate, for probers that find
// themselves invalid at run time.
func firstError(v validator) error {
	if errs := v.validate(); len(errs) > 0 {
		return errs[0]
	}
	return nil
}
