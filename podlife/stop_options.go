package podlife

import (
	"time"

	"github.com/podlife/podlife/podlife/internal/worker"
)

// StopOption changes how Stop stops a pod.
type StopOption func(*stopOptions)

type stopOptions struct {
	grace   *time.Duration
	noHooks bool
}

// WithGracePeriod overrides the pod's terminationGracePeriod for this stop (like
// `kubectl delete --grace-period`). Zero skips preStop hooks.
func WithGracePeriod(d time.Duration) StopOption {
	return func(o *stopOptions) { o.grace = &d }
}

// WithoutHooks skips preStop hooks.
func WithoutHooks() StopOption {
	return func(o *stopOptions) { o.noHooks = true }
}

// worker is o as the pod's worker takes it.
func (o stopOptions) worker() worker.StopOptions {
	return worker.StopOptions{Grace: o.grace, NoHooks: o.noHooks}
}

// resolveStop applies opts.
func resolveStop(opts []StopOption) stopOptions {
	var o stopOptions
	for _, opt := range opts {
		opt(&o)
	}
	return o
}
