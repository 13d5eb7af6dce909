package podlife

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sync/errgroup"
)

// podKey carries the pod to its start policy, for WaitContainer.
type podKey struct{}

// DependencyOrder starts every container as soon as the containers it depends on
// (ContainerSpec.DependsOn) have reached their condition: Started, Ready or Completed. Containers
// without dependencies start at once, in parallel. This is Compose's depends_on inside one pod,
// which the kubelet does not offer; cycles and unknown names are rejected by validation.
func DependencyOrder() StartPolicy {
	return StartPolicyFunc(func(ctx context.Context, containers []string, start StartFunc) error {
		p, ok := ctx.Value(podKey{}).(*Pod)
		if !ok {
			return errors.New("podlife: DependencyOrder needs the context podlife gives a start policy")
		}
		var g errgroup.Group
		errs := make([]error, len(containers))
		for i, name := range containers {
			c, err := p.Container(name)
			if err != nil {
				errs[i] = err
				continue
			}
			g.Go(func() error {
				for _, d := range c.spec.DependsOn {
					if err := WaitContainer(ctx, d.Container, d.Condition); err != nil {
						errs[i] = fmt.Errorf("container %q: dependency: %w", name, err)
						return nil
					}
				}
				errs[i] = start(ctx, name)
				return nil
			})
		}
		_ = g.Wait()
		return errors.Join(errs...)
	})
}

// ErrDependencyFailed: a container a start waits for ended and will not reach the condition.
var ErrDependencyFailed = errors.New("dependency will not be met")

// WaitContainer blocks until the named container of the pod being started reaches cond
// (ContainerStarted if empty). It is for start policies: ctx must be (or derive from) the one
// podlife passed to StartPolicy.Start. It fails with ErrDependencyFailed if the container
// ended and will not restart.
func WaitContainer(ctx context.Context, name string, cond DependencyCondition) error {
	p, ok := ctx.Value(podKey{}).(*Pod)
	if !ok {
		return errors.New("podlife: WaitContainer needs the context podlife gives a start policy")
	}
	c, err := p.Container(name)
	if err != nil {
		return err
	}
	var failed bool
	_, err = p.WaitFor(ctx, func(PodStatus) bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		t := c.state.Terminated
		switch cond {
		case ContainerCompleted:
			if t != nil && t.ExitCode == 0 {
				return true
			}
		case ContainerReady:
			if c.ready {
				return true
			}
		default:
			if c.started {
				return true
			}
		}
		failed = t != nil && !c.shouldRestart(t.ExitCode)
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
