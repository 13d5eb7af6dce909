package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"time"

	"github.com/podlife/podlife/podlife/internal/worker/podupdate"
	"github.com/podlife/podlife/podlife/internal/worker/status"
)

// conditionsOwned computes the conditions (see status.Conditions), keeping each one's last
// transition time in p.condTimes; the conditions set with SetCondition follow. It runs on the
// pod's loop.
func (p *Worker) conditionsOwned(inits, apps []ContainerStatus) []PodCondition {
	conds, times := status.Conditions(time.Now(), status.Input{
		Phase: p.phase, SandboxReady: p.sandboxReady, Terminated: p.terminated,
		Inits: inits, Apps: apps, Sidecars: p.sidecars,
		GatesMessage: podupdate.GatesMessage(p.spec.ReadinessGates, p.custom), Custom: p.custom,
	}, p.condTimes)
	p.condTimes = times
	return conds
}
