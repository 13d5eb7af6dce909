package worker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	. "github.com/podlife/podlife/podlife/internal/api"
)

// startPrewarmed is the start sequence of a pod taken from a warm pool (startSequence's, from
// the init containers on): its sandbox, network and containers are made, so only processes
// start, in the same order as a cold start's.
func (p *Worker) startPrewarmed() error {
	ctx := p.startCtx
	t0 := time.Now()
	defer func() { p.log.Debug("start sequence done (from the warm pool)", "took", time.Since(t0)) }()
	seqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if err := p.runInits(seqCtx); err != nil {
		return setupError(seqCtx, err)
	}
	names := make([]string, len(p.apps))
	for i, c := range p.apps {
		names[i] = c.spec.Name
	}
	err := p.spec.StartPolicy.Start(seqCtx, &podStarter{p: p, names: names, start: func(ctx context.Context, name string) error {
		c, ok := p.byName[name]
		if !ok || c.init {
			return fmt.Errorf("start policy asked for unknown container %q", name)
		}
		return c.start(ctx)
	}})
	if cause := context.Cause(seqCtx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	if err != nil && !p.isStopping() {
		// As startSequence: a postStart failure is not the start's; a container's
		// CreateContainerConfigError only if no other container failed.
		var configErr error
		var se *StartError
		for _, e := range UnwrapJoined(err) {
			switch {
			case !errors.As(e, &se) || se.Step == StepPostStart:
			case errors.Is(e, ErrCreateContainerConfig):
				configErr = cmp.Or(configErr, e)
			default:
				return e
			}
		}
		return configErr
	}
	return nil
}
