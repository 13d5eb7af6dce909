package api

import (
	"context"
	"errors"

	"golang.org/x/sync/errgroup"
)

// Starter is a start policy's handle on the pod it starts. podlife gives one to
// StartPolicy.Start; a test of a policy can give its own. Its methods are safe for concurrent use.
type Starter interface {
	// Containers returns the pod's app containers, in spec order.
	Containers() []string
	// Start starts one container by name: it waits until the container is created and the
	// pod's network is ready, starts its process, and returns once its postStart hook has
	// finished (or failed).
	Start(ctx context.Context, name string) error
	// DependsOn returns the container's ContainerSpec.DependsOn.
	DependsOn(name string) []Dependency
	// Wait blocks until the named container reaches cond (ContainerStarted if empty). It fails
	// with an error wrapping ErrDependencyFailed if the container ended and will not restart.
	Wait(ctx context.Context, name string, cond DependencyCondition) error
}

// StartPolicy decides when each of a pod's app containers starts. Work that does not depend on
// the order (image checks, snapshots, container and task creation, network setup) has already
// been started in parallel before the policy runs; a policy governs only the process starts
// and, through Starter.Start's return, the postStart hooks.
//
// Start returns when it has started all it wants to start. It should keep going after a
// container fails (the kubelet does) and return the joined errors; ctx is cancelled when the pod
// is being stopped.
type StartPolicy interface {
	Start(ctx context.Context, s Starter) error
}

// StartPolicyFunc adapts a function to StartPolicy.
type StartPolicyFunc func(ctx context.Context, s Starter) error

// Start calls f.
func (f StartPolicyFunc) Start(ctx context.Context, s Starter) error {
	return f(ctx, s)
}

// Sequential is the kubelet's order and podlife's default: containers start one at a time in spec
// order, and each container's postStart hook must return before the next container starts. A
// container that fails to start does not stop the others.
func Sequential() StartPolicy {
	return StartPolicyFunc(func(ctx context.Context, s Starter) error {
		var errs []error
		for _, name := range s.Containers() {
			if ctx.Err() != nil {
				errs = append(errs, ctx.Err())
				break
			}
			if err := s.Start(ctx, name); err != nil {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	})
}

// Parallel starts up to limit containers at once (limit <= 0 means all at once). A container's
// postStart hook then delays only that container's own readiness, not the others' starts.
func Parallel(limit int) StartPolicy {
	return StartPolicyFunc(func(ctx context.Context, s Starter) error {
		containers := s.Containers()
		var g errgroup.Group
		if limit > 0 {
			g.SetLimit(limit)
		}
		errs := make([]error, len(containers))
		for i, name := range containers {
			g.Go(func() error {
				errs[i] = s.Start(ctx, name)
				return nil
			})
		}
		_ = g.Wait()
		return errors.Join(errs...)
	})
}
