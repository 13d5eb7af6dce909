package podlife

import (
	"context"
	"errors"

	"golang.org/x/sync/errgroup"
)

// StartFunc starts one container by name: it waits until the container is created and the pod's
// network is ready, starts its process, and returns once its postStart hook has finished (or
// failed). It is safe for concurrent use by a policy.
type StartFunc func(ctx context.Context, name string) error

// StartPolicy decides when each of a pod's containers starts. Work that does not depend on the
// order (image checks, snapshots, container and task creation, network setup) has already been
// started in parallel before the policy runs; a policy governs only the process starts and, through
// StartFunc's return, the postStart hooks.
//
// Start is given the containers in spec order and returns when it has started all it wants to
// start. It should keep going after a container fails (the kubelet does) and return the joined
// errors; ctx is cancelled when the pod is being stopped.
type StartPolicy interface {
	Start(ctx context.Context, containers []string, start StartFunc) error
}

// StartPolicyFunc adapts a function to StartPolicy.
type StartPolicyFunc func(ctx context.Context, containers []string, start StartFunc) error

// Start calls f.
func (f StartPolicyFunc) Start(ctx context.Context, containers []string, start StartFunc) error {
	return f(ctx, containers, start)
}

// Sequential is the kubelet's order and podlife's default: containers start one at a time in spec
// order, and each container's postStart hook must return before the next container starts. A
// container that fails to start does not stop the others.
func Sequential() StartPolicy {
	return StartPolicyFunc(func(ctx context.Context, containers []string, start StartFunc) error {
		var errs []error
		for _, name := range containers {
			if ctx.Err() != nil {
				errs = append(errs, ctx.Err())
				break
			}
			if err := start(ctx, name); err != nil {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	})
}

// Parallel starts up to limit containers at once (limit <= 0 means all at once). A container's
// postStart hook then delays only that container's own readiness, not the others' starts.
func Parallel(limit int) StartPolicy {
	return StartPolicyFunc(func(ctx context.Context, containers []string, start StartFunc) error {
		var g errgroup.Group
		if limit > 0 {
			g.SetLimit(limit)
		}
		errs := make([]error, len(containers))
		for i, name := range containers {
			g.Go(func() error {
				errs[i] = start(ctx, name)
				return nil
			})
		}
		_ = g.Wait()
		return errors.Join(errs...)
	})
}
