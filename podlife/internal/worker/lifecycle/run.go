package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife/internal/api"
)

// Settle is how long a hook whose context ended may take to return before it is abandoned.
const Settle = 200 * time.Millisecond

// The kinds of hook, as the kubelet's events name them.
const (
	PostStart = "PostStart"
	PreStop   = "PreStop"
)

// Hook is one run of a lifecycle handler against a container.
type Hook struct {
	Kind    string        // PostStart or PreStop
	Handler hook.Handler  // what runs
	Timeout time.Duration // the container's HookTimeout; 0: none
	Target  hook.Target   // what the handler acts on
	Log     *slog.Logger  // the pod's logger, with the container
	// Go runs fn in a goroutine the caller owns and awaits; abandon, called when the
	// handler is given up on, tells the caller it may stop awaiting it.
	Go func(fn func()) (abandon func())
	// Warn emits a Warning event about the container.
	Warn func(reason api.Reason, msg string)
}

// Run runs h's handler, bounded by h.Timeout if set. It never waits for the handler much past
// the end of ctx: a handler that has not returned Settle after ctx ended is abandoned (h.Go's
// abandon is called), and a Warning event says so.
func Run(ctx context.Context, h Hook) error {
	if h.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, h.Timeout)
		defer cancel()
	}
	done := make(chan error, 1) // the handler's goroutine never blocks on it
	abandon := h.Go(func() { done <- h.Handler.Run(ctx, h.Target) })
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	settle := time.NewTimer(Settle)
	defer settle.Stop()
	select {
	case err := <-done:
		return err
	case <-settle.C:
	}
	abandon()
	why := "the pod is stopping"
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && h.Kind == PreStop:
		why = "the grace period is over"
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		why = "its hookTimeout is over"
	}
	desc, _, _ := strings.Cut(hook.Describe(h.Handler), " ")
	reason := api.ReasonFailedPostStartHook
	if h.Kind == PreStop {
		reason = api.ReasonFailedPreStopHook
	}
	h.Warn(reason, fmt.Sprintf("%sHook (%s) abandoned: it did not return when %s", h.Kind, desc, why))
	h.Log.Warn("lifecycle hook abandoned: it ignores its context", "hook", h.Kind, "handler", hook.Describe(h.Handler))
	return fmt.Errorf("%s hook abandoned (it did not return when %s): %w", h.Kind, why, ctx.Err())
}

// PostStartMessage is the kubelet's message of a failed postStart hook (the container's
// waiting state's; its event says only "PostStartHook failed").
func PostStartMessage(h hook.Handler, pod, container string, err error) string {
	return fmt.Sprintf("%s lifecycle hook for Container %q in Pod %q failed - error: %v", hook.Describe(h), container, pod, err)
}
