package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"time"

	"github.com/podlife/podlife/podlife/internal/worker/status"
)

// completionPhaseOwned returns the phase to report for computed (see status.Completion), and
// starts the pod's stop if computed is terminal while a sidecar is still running (or waiting
// for its restart). It runs on the pod's loop.
func (p *Worker) completionPhaseOwned(computed Phase, inits, apps []ContainerStatus) Phase {
	phase, stop := status.Completion(computed, p.terminated, inits, apps, p.sidecars)
	if stop && !p.stopping && !p.completing {
		p.completing = true
		p.spawn(gStop, func() { p.stopWith(p.lifeCtx, GracePeriod(&p.spec), true, nil) })
	}
	return phase
}

// waitOutlived blocks a sidecar's stop signal until every app container and every sidecar after
// it in spec order has exited (the kubelet's termination order), or until deadline.
func (p *Worker) waitOutlived(sidecar *Container, deadline time.Time) {
	ctx, cancel := context.WithDeadline(p.lifeCtx, deadline)
	defer cancel()
	after := false
	var outlived []*Container
	for _, c := range p.inits {
		if after && c.sidecar {
			outlived = append(outlived, c)
		}
		after = after || c == sidecar
	}
	outlived = append(outlived, p.apps...)
	_, _ = p.WaitFor(ctx, func(PodStatus) bool {
		gone := true // also once the loop has ended
		p.do(func() {
			for _, c := range outlived {
				if c.cur != nil && c.cur.running && c.st.State.Running != nil {
					gone = false
				}
			}
		})
		return gone
	})
}
