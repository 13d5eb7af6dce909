package main

import (
	"context"

	"github.com/podlife/podlife/podlife"
)

// adopter is podlife's Runtime.Adopt: it takes over a pod that runs with no manager, without
// restarting it. It fails with podlife.ErrSpecChanged if the pod runs another spec, and with
// podlife.ErrManaged if a live process manages it.
type adopter interface {
	Adopt(ctx context.Context, spec podlife.PodSpec) (*podlife.Pod, error)
}

// adoptFunc returns rt's Adopt, or nil if this podlife has none: the agent then leaves the pods
// it finds running alone (unsupervised) until their manifest changes or goes.
func adoptFunc(rt *podlife.Runtime) func(context.Context, podlife.PodSpec) (*podlife.Pod, error) {
	if a, ok := any(rt).(adopter); ok {
		return a.Adopt
	}
	return nil
}

// errSpecChanged and errManaged are podlife.ErrSpecChanged and podlife.ErrManaged once this
// podlife has Adopt; nil (matching nothing) before.
var errSpecChanged, errManaged error
