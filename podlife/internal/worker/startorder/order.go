package startorder

import (
	"context"
	"errors"
	"fmt"

	. "github.com/podlife/podlife/podlife/internal/api"
	"golang.org/x/sync/errgroup"
)

// DependencyOrder starts every container as soon as the containers it depends on
// (ContainerSpec.DependsOn) have reached their condition: Started, Ready or Completed. Containers
// without dependencies start at once, in parallel. This is Compose's depends_on inside one pod,
// which the kubelet does not offer; cycles and unknown names are rejected by validation.
func DependencyOrder() StartPolicy {
	return StartPolicyFunc(func(ctx context.Context, s Starter) error {
		containers := s.Containers()
		// skipped[name] is closed once this policy will not start name (a dependency of it
		// failed): what depends on name then fails too instead of waiting for ever.
		skipped := make(map[string]chan struct{}, len(containers))
		for _, name := range containers {
			skipped[name] = make(chan struct{})
		}
		var g errgroup.Group
		errs := make([]error, len(containers))
		for i, name := range containers {
			g.Go(func() error {
				for _, d := range s.DependsOn(name) {
					if err := waitDependency(ctx, s, d, skipped[d.Container]); err != nil {
						errs[i] = fmt.Errorf("container %q: dependency: %w", name, err)
						close(skipped[name])
						return nil
					}
				}
				errs[i] = s.Start(ctx, name)
				return nil
			})
		}
		_ = g.Wait()
		return errors.Join(errs...)
	})
}

// waitDependency waits for d through s, or fails with ErrDependencyFailed once the policy gave
// up on starting d's container (skipped closed; nil for a container the policy does not start).
func waitDependency(ctx context.Context, s Starter, d Dependency, skipped <-chan struct{}) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	gaveUp := fmt.Errorf("container %q will not start: %w", d.Container, ErrDependencyFailed)
	if skipped != nil {
		done := make(chan struct{})
		go func() {
			defer close(done)
			select {
			case <-skipped:
				cancel(gaveUp)
			case <-ctx.Done():
			}
		}()
		defer func() { cancel(nil); <-done }() // the watch ends before the wait returns
	}
	err := s.Wait(ctx, d.Container, d.Condition)
	if cause := context.Cause(ctx); err != nil && errors.Is(cause, ErrDependencyFailed) {
		return cause
	}
	return err
}

// ErrDependencyFailed: a container a start waits for ended and will not reach the condition.
var ErrDependencyFailed = errors.New("dependency will not be met")
