package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"errors"
	"fmt"

	"github.com/podlife/podlife/podlife/internal/worker/startorder"
)

// podStarter is the Starter podlife gives a pod's start policy.
type podStarter struct {
	p     *Worker
	names []string
	start func(ctx context.Context, name string) error

	// failed names the containers whose start failed before their process ran. Owned by the
	// pod's loop.
	failed map[string]bool
}

func (s *podStarter) Containers() []string { return append([]string(nil), s.names...) }

func (s *podStarter) Start(ctx context.Context, name string) error {
	err := s.start(ctx, name)
	var se *StartError
	if errors.As(err, &se) && se.Step != StepPostStart {
		// Its process never ran: what waits for it must not wait for ever. The update wakes
		// it (Wait).
		s.p.update(func() {
			if s.failed == nil {
				s.failed = map[string]bool{}
			}
			s.failed[name] = true
		})
	}
	return err
}

func (s *podStarter) DependsOn(name string) []Dependency {
	c, ok := s.p.byName[name]
	if !ok {
		return nil
	}
	return append([]Dependency(nil), c.spec.DependsOn...)
}

func (s *podStarter) Wait(ctx context.Context, name string, cond DependencyCondition) error {
	p := s.p
	c, err := p.Container(name)
	if err != nil {
		return err
	}
	var failed bool
	_, err = p.WaitFor(ctx, func(PodStatus) bool {
		met, ended := false, false
		p.do(func() {
			t := c.st.State.Terminated
			switch cond {
			case ContainerCompleted:
				met = t != nil && t.ExitCode == 0
			case ContainerReady:
				met = c.st.Ready
			default:
				met = c.st.Started
			}
			ended = t != nil && !c.shouldRestartOwned(t.ExitCode) || s.failed[name]
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
		return fmt.Errorf("container %q ended before it was %s: %w", name, cond, startorder.ErrDependencyFailed)
	}
	return nil
}
