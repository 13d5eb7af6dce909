package hook

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Sleep returns a handler that waits for d; nothing runs in the container.
// d may be 0, in which case the handler returns at once. If ctx is done before
// d has passed, the handler fails with an [*Error] whose message says
// "container terminated before sleep hook finished" and which wraps ctx.Err().
// A negative d is invalid.
func Sleep(d time.Duration) Handler { return sleepHandler{d: d} }

type sleepHandler struct{ d time.Duration }

func (h sleepHandler) String() string { return "sleep " + h.d.String() }

func (h sleepHandler) validate() error {
	if h.d < 0 {
		return fmt.Errorf("sleep: duration %v must not be negative", h.d)
	}
	return nil
}

// errSleepTerminated is the kubelet's message for a sleep cut short.
var errSleepTerminated = errors.New("container terminated before sleep hook finished")

func (h sleepHandler) Run(ctx context.Context, t Target) error {
	if err := h.validate(); err != nil {
		return newError("sleep", h, t, nil, err)
	}
	if h.d == 0 {
		return nil
	}
	timer := time.NewTimer(h.d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return newError("sleep", h, t, nil, fmt.Errorf("%w: %w", errSleepTerminated, ctx.Err()))
	}
}
