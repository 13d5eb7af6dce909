package podstart

import (
	"errors"

	"github.com/podlife/podlife/podlife/internal/api"
)

// Outcome is what becomes of a pod whose start sequence returned.
type Outcome int

const (
	// Started: the sequence returned no error.
	Started Outcome = iota
	// Stays: a stop cancelled the start, or the pod failed on its own (ErrPodFailed); the pod
	// stays, and the start is not a failure.
	Stays
	// ConfigFailed: a container cannot be created with its settings (ErrCreateContainerConfig);
	// the pod stays, that container Waiting (CreateContainerConfigError), as the kubelet's.
	ConfigFailed
	// Detached: the runtime closed while the pod started; what exists of it stays for another
	// Runtime.
	Detached
	// Failed: the pod failed to start; it is removed.
	Failed
)

// OutcomeOf decides what becomes of a pod whose start sequence returned err, given whether its
// stop has begun and whether its runtime was closed (asked only if it decides).
func OutcomeOf(err error, stopping bool, closed func() bool) Outcome {
	switch {
	case err == nil:
		return Started
	case stopping || errors.Is(err, ErrPodFailed):
		return Stays
	case errors.Is(err, api.ErrCreateContainerConfig):
		return ConfigFailed
	case closed():
		return Detached
	}
	return Failed
}
