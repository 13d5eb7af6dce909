package startorder

import (
	"context"
	"errors"
	"fmt"

	. "github.com/podlife/podlife/podlife/internal/api"
)

// PodStarter is the api.Starter the worker gives a pod's start policy, over its app
// containers. The worker fills in its fields; Do and Update run a closure on the pod's loop
// (Update also wakes WaitFor), the other functions run off it unless said otherwise.
type PodStarter struct {
	// Names are the pod's app containers, in spec order.
	Names []string
	// StartFunc starts an app container (see PodStarter.Start); an error for any other name.
	StartFunc func(ctx context.Context, name string) error
	// DependsOnFunc returns the named container's ContainerSpec.DependsOn, nil if none.
	DependsOnFunc func(name string) []Dependency
	// State returns, for a container of the pod (init and ephemeral ones included), a function
	// that reads its state on the pod's loop; an error if the pod has no such container.
	State      func(name string) (func() State, error)
	Do, Update func(f func()) bool
	// WaitFor blocks until cond holds, checked at each change of the pod's status, or ctx ends.
	WaitFor func(ctx context.Context, cond func() bool) error

	// failed names the containers whose start failed before their process ran. Owned by the
	// pod's loop.
	failed map[string]bool
}

// State is a container's state as PodStarter.Wait reads it.
type State struct {
	Terminated     *StateTerminated // its current state's termination, nil if it has none
	Started, Ready bool
	Restarts       bool // a terminated container will restart
}

// Containers returns the pod's app containers, in spec order.
func (s *PodStarter) Containers() []string { return append([]string(nil), s.Names...) }

// Start starts the named container (see api.Starter).
func (s *PodStarter) Start(ctx context.Context, name string) error {
	err := s.StartFunc(ctx, name)
	var se *StartError
	if errors.As(err, &se) && se.Step != StepPostStart {
		// Its process never ran: what waits for it must not wait for ever. The update wakes
		// it (Wait).
		s.Update(func() {
			if s.failed == nil {
				s.failed = map[string]bool{}
			}
			s.failed[name] = true
		})
	}
	return err
}

// DependsOn returns the container's ContainerSpec.DependsOn.
func (s *PodStarter) DependsOn(name string) []Dependency {
	return append([]Dependency(nil), s.DependsOnFunc(name)...)
}

// Wait blocks until the named container reaches cond (see api.Starter).
func (s *PodStarter) Wait(ctx context.Context, name string, cond DependencyCondition) error {
	state, err := s.State(name)
	if err != nil {
		return err
	}
	var failed bool
	err = s.WaitFor(ctx, func() bool {
		met, ended := false, false
		s.Do(func() {
			st := state()
			t := st.Terminated
			switch cond {
			case ContainerCompleted:
				met = t != nil && t.ExitCode == 0
			case ContainerReady:
				met = st.Ready
			default:
				met = st.Started
			}
			ended = t != nil && !st.Restarts || s.failed[name]
		})
		if met {
			return true
		}
		failed = ended
		return failed
	})
	if err != nil {
		return err
	}
	if failed {
		return fmt.Errorf("container %q ended before it was %s: %w", name, cond, ErrDependencyFailed)
	}
	return nil
}
