package hook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// MaxOutputBytes caps the command output kept by exec handlers and the response
// body read by HTTP handlers (10 KiB, as in the kubelet). Package probe uses the
// same cap. Longer output is truncated silently.
const MaxOutputBytes = 10 << 10

// ReasonLifecycleHTTPFallback is the event reason passed to [Target.Warn] when an
// HTTPS handler got a plain HTTP answer and the retry over HTTP succeeded.
const ReasonLifecycleHTTPFallback = "LifecycleHTTPFallback"

// Errors that callers may test for with [errors.Is].
var (
	// ErrNoExecer is returned when an exec handler or prober runs against a
	// Target without an Execer.
	ErrNoExecer = errors.New("target has no Execer")
	// ErrNoIP is returned when an HTTP handler or prober without an explicit
	// host runs against a Target without an IP address.
	ErrNoIP = errors.New("target has no IP address and no host was given")
)

// Target is what a handler acts on.
type Target struct {
	// Pod and Container name the target. They only appear in error messages.
	Pod, Container string
	// IP is the pod's primary IP address. HTTP handlers and probes send their
	// requests to it unless they name a host of their own.
	IP netip.Addr
	// Exec runs commands inside the container; exec handlers and probes need it.
	Exec Execer
	// Warn, if not nil, receives warnings that the caller should turn into
	// Warning events on the pod, such as ReasonLifecycleHTTPFallback. It is
	// called synchronously from the handler's goroutine.
	Warn func(reason, message string)
}

// Execer runs a command inside the target container and returns its exit code
// and combined output.
//
// A command that ran and exited, whatever its exit code, is reported in the
// ExecResult with a nil error. The error is for commands that could not be run
// or waited for. Implementations must stop the command, or at least stop
// waiting for it, when ctx is done, and then return an error that wraps
// ctx.Err(). They may keep only the first [MaxOutputBytes] bytes of output.
type Execer interface {
	Exec(ctx context.Context, argv []string) (ExecResult, error)
}

// ExecerFunc adapts a function to the [Execer] interface.
type ExecerFunc func(ctx context.Context, argv []string) (ExecResult, error)

// Exec calls f(ctx, argv).
func (f ExecerFunc) Exec(ctx context.Context, argv []string) (ExecResult, error) {
	return f(ctx, argv)
}

// ExecResult is the outcome of a command run by an [Execer].
type ExecResult struct {
	// ExitCode is the command's exit code; 0 means success.
	ExitCode int
	// Output is the command's combined stdout and stderr.
	Output []byte
}

// Handler is a lifecycle handler.
type Handler interface {
	// Run runs the handler once against t and returns when it has finished.
	// A nil error means success.
	Run(ctx context.Context, t Target) error
}

// HandlerFunc adapts a Go function to the [Handler] interface. Its errors are
// returned unchanged (not wrapped in [*Error]).
type HandlerFunc func(ctx context.Context, t Target) error

// Run calls f(ctx, t).
func (f HandlerFunc) Run(ctx context.Context, t Target) error { return f(ctx, t) }

// Describe returns a short human description of h for status messages and
// logs, such as "exec [sh -c echo hi]", "httpGet http://:8080/healthz",
// "sleep 5s" or "func". It never includes header values. A Handler of another
// type is described by its String method if it has one, or else by its type.
func Describe(h Handler) string {
	switch h := h.(type) {
	case nil:
		return "<nil>"
	case fmt.Stringer:
		return h.String()
	case HandlerFunc:
		return "func"
	default:
		return fmt.Sprintf("%T", h)
	}
}

// validator is implemented by the handlers of this package.
type validator interface{ validate() error }

// Validate reports whether h is well formed: a non-empty exec command, an HTTP
// port between 1 and 65535 and a scheme of HTTP or HTTPS, a non-negative sleep.
// It accepts any HandlerFunc and any Handler of another package. A nil h is an
// error. Run performs the same checks and fails the same way.
func Validate(h Handler) error {
	if h == nil {
		return errors.New("no handler")
	}
	if v, ok := h.(validator); ok {
		return v.validate()
	}
	return nil
}

// Error is the error returned by the Exec, HTTPGet and Sleep handlers.
//
// Its message has the form
//
//	lifecycle hook exec [sh -c false] for container "app" in pod "web" failed: exit code 1, output: "..."
//
// and may include the command's output: keep it out of events.
type Error struct {
	// Kind is the handler kind: "exec", "httpGet" or "sleep".
	Kind string
	// Handler is Describe of the handler that failed.
	Handler string
	// Pod and Container are copied from the Target.
	Pod, Container string
	// Output is the combined output of an exec handler's command, at most
	// MaxOutputBytes long; nil for other kinds.
	Output []byte
	// Err is the cause: an [*ExitError] for a command that exited non-zero,
	// ErrNoExecer, ErrNoIP, a transport error, a context error, ...
	Err error
}

// Error implements the error interface.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("lifecycle hook ")
	b.WriteString(e.Handler)
	if e.Container != "" {
		fmt.Fprintf(&b, " for container %q", e.Container)
	}
	if e.Pod != "" {
		fmt.Fprintf(&b, " in pod %q", e.Pod)
	}
	b.WriteString(" failed: ")
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	} else {
		b.WriteString("unknown error")
	}
	var exit *ExitError
	if len(e.Output) > 0 || errors.As(e.Err, &exit) {
		fmt.Fprintf(&b, ", output: %q", e.Output)
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// ExitError reports that an exec handler's command exited with a non-zero code.
type ExitError struct {
	// Code is the exit code.
	Code int
}

// Error implements the error interface.
func (e *ExitError) Error() string { return "exit code " + strconv.Itoa(e.Code) }

func newError(kind string, h Handler, t Target, output []byte, err error) *Error {
	return &Error{Kind: kind, Handler: Describe(h), Pod: t.Pod, Container: t.Container, Output: output, Err: err}
}

// capOutput returns at most MaxOutputBytes bytes of b, copied if truncated so
// that a large buffer is not retained.
func capOutput(b []byte) []byte {
	if len(b) > MaxOutputBytes {
		return bytes.Clone(b[:MaxOutputBytes])
	}
	return b
}
