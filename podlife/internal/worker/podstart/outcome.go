package podstart

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/containerd/errdefs"

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

// Ending is what Conclude needs of the worker whose start sequence returned.
type Ending struct {
	Pod      string
	Log      *slog.Logger
	Stopping bool        // the pod's stop has begun
	Closed   func() bool // the Runtime was closed
	// Remove stops and removes the pod whose start failed, in a goroutine of the worker's; the
	// channel is closed once it is done. ConnLost is closed while containerd is away.
	Remove   func() <-chan struct{}
	ConnLost func() <-chan struct{}
}

// Conclude logs what becomes of a pod whose start sequence returned err (OutcomeOf) and
// returns what the worker keeps of it: startErr, the start's failure (the pod is removed, or
// left to another Runtime), or configErr, a container's ErrCreateContainerConfig (the pod
// stays). The removal of a failed start is awaited unless containerd is away: it then goes on
// and completes once containerd answers again.
func Conclude(err error, e Ending) (startErr, configErr error) {
	switch OutcomeOf(err, e.Stopping, e.Closed) {
	case Stays:
		e.Log.Debug("start sequence ended", "err", err)
	case ConfigFailed:
		// Run reports it; the pod stays.
		e.Log.Info("a container cannot be created with its settings; the pod stays", "err", err)
		return nil, err
	case Detached:
		// What exists of the pod stays for another Runtime (Pod.Remove).
		e.Log.Info("runtime closed while the pod started", "err", err)
		return fmt.Errorf("pod %q: %w (start: %w)", e.Pod, api.ErrClosed, err), nil
	case Failed:
		e.Log.Info("pod failed to start; removing it", "err", err)
		removed := e.Remove()
		select {
		case <-removed:
		case <-e.ConnLost():
			// containerd is away (maybe the cause of the failure): Run returns now.
			return fmt.Errorf("%w (containerd does not answer: the pod is removed once it is back: %w)", err, errdefs.ErrUnavailable), nil
		}
		return err, nil
	}
	return nil, nil
}
