package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"fmt"
	"time"

	"github.com/podlife/podlife/podlife/internal/worker/podupdate"
	"github.com/podlife/podlife/podlife/internal/worker/status"
)

// SetCondition sets a condition of the pod, as a controller patches a pod's status (podlife's
// Pod.SetCondition; the rules are podupdate's). The error wraps ErrInvalidSpec for an invalid
// type or status, and ErrClosed once the pod was removed or its Runtime closed.
func (p *Worker) SetCondition(t ConditionType, status ConditionStatus, reason, message string) error {
	if err := podupdate.ValidateCondition(p.name, t, status); err != nil {
		return fmt.Errorf("set condition: %w", err)
	}
	now := time.Now()
	if !p.update(func() { p.custom = podupdate.SetCondition(p.custom, t, status, reason, message, now) }) {
		return fmt.Errorf("set condition: pod %q: %w", p.name, ErrClosed)
	}
	return nil
}

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
