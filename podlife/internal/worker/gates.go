package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"fmt"
	"time"

	"github.com/podlife/podlife/podlife/internal/worker/podupdate"
)

// SetCondition sets a condition of the pod, as a controller patches a pod's status in
// Kubernetes: typically one named in the spec's ReadinessGates, so that the pod becomes
// Ready only once the condition is True. status is ConditionTrue, ConditionFalse or
// ConditionUnknown. The condition's last transition time changes when its status does. The
// conditions podlife computes itself (Ready, ContainersReady, Initialized, PodScheduled,
// PodReadyToStartContainers) cannot be set. The error wraps ErrInvalidSpec for an invalid
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
