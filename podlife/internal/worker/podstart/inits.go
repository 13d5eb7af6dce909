package podstart

import (
	"context"
	"errors"

	"github.com/podlife/podlife/podlife/internal/api"
)

// Init is an init container as RunInits runs it.
type Init struct {
	Sidecar bool                            // restartPolicy Always: a native sidecar
	Start   func(ctx context.Context) error // starts its first instance (postStart included)
	Status  func() api.ContainerStatus      // its status in the pod's last snapshot
}

// RunInits runs the init containers one at a time, in order. A regular init container must exit
// 0 (it is restarted under back-off until it does, or the pod fails under restartPolicy Never:
// ErrPodFailed); the next one starts once a sidecar has started (its startupProbe succeeded,
// if any). wait blocks until its condition holds for the pod's status (the worker's WaitFor).
func RunInits(ctx context.Context, inits []Init, wait func(context.Context, func(api.PodStatus) bool) (api.PodStatus, error)) error {
	for _, c := range inits {
		if err := c.Start(ctx); err != nil {
			var se *api.StartError
			if !errors.As(err, &se) || se.Step != api.StepPostStart {
				return err
			}
		}
		st, err := wait(ctx, func(st api.PodStatus) bool {
			cs := c.Status()
			if c.Sidecar {
				return cs.Started || st.Phase == api.PhaseFailed
			}
			t := cs.State.Terminated
			return t != nil && t.ExitCode == 0 || st.Phase == api.PhaseFailed
		})
		if err != nil {
			return err
		}
		if st.Phase == api.PhaseFailed {
			return ErrPodFailed
		}
	}
	return nil
}
