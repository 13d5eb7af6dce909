package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// kubeletConditions are the conditions podlife computes itself: SetCondition refuses them.
var kubeletConditions = []ConditionType{PodReadyToStartContainers, PodInitialized, PodReady, ContainersReady, PodScheduled}

// SetCondition sets a condition of the pod, as a controller patches a pod's status in
// Kubernetes: typically one named in the spec's ReadinessGates, so that the pod becomes
// Ready only once the condition is True. status is ConditionTrue, ConditionFalse or
// ConditionUnknown. The condition's last transition time changes when its status does. The
// conditions podlife computes itself (Ready, ContainersReady, Initialized, PodScheduled,
// PodReadyToStartContainers) cannot be set. The error wraps ErrInvalidSpec for an invalid
// type or status, and ErrClosed once the pod was removed or its Runtime closed.
func (p *Worker) SetCondition(t ConditionType, status ConditionStatus, reason, message string) error {
	if err := ValidateCondition(p.name, t, status); err != nil {
		return fmt.Errorf("set condition: %w", err)
	}
	now := time.Now()
	if !p.update(func() {
		i := slices.IndexFunc(p.custom, func(c PodCondition) bool { return c.Type == t })
		if i < 0 {
			p.custom = append(p.custom, PodCondition{Type: t, LastTransitionTime: now})
			i = len(p.custom) - 1
		}
		c := &p.custom[i]
		if c.Status != status {
			c.LastTransitionTime = now
		}
		c.Status, c.Reason, c.Message = status, reason, message
	}) {
		return fmt.Errorf("set condition: pod %q: %w", p.name, ErrClosed)
	}
	return nil
}

// ValidateCondition checks a condition set from outside podlife on the named pod.
func ValidateCondition(pod string, t ConditionType, status ConditionStatus) error {
	var errs field.ErrorList
	p := field.NewPath("status", "conditions")
	for _, msg := range validation.IsQualifiedName(string(t)) {
		errs = append(errs, field.Invalid(p.Child("type"), t, msg))
	}
	if slices.Contains(kubeletConditions, t) {
		errs = append(errs, field.Forbidden(p.Child("type"), fmt.Sprintf("%s is computed by podlife", t)))
	}
	switch status {
	case ConditionTrue, ConditionFalse, ConditionUnknown:
	default:
		errs = append(errs, field.NotSupported(p.Child("status"), status, []ConditionStatus{ConditionTrue, ConditionFalse, ConditionUnknown}))
	}
	if len(errs) > 0 {
		return &ValidationError{Pod: pod, Errs: errs}
	}
	return nil
}

// gatesMessage returns why the readiness gates hold the pod back, in the kubelet's words
// (status/generate.go), or "" when every gate's condition is True.
func gatesMessage(gates []ConditionType, conds []PodCondition) string {
	var msgs []string
	for _, g := range gates {
		i := slices.IndexFunc(conds, func(c PodCondition) bool { return c.Type == g })
		switch {
		case i < 0:
			msgs = append(msgs, fmt.Sprintf("corresponding condition of pod readiness gate %q does not exist.", string(g)))
		case conds[i].Status != ConditionTrue:
			msgs = append(msgs, fmt.Sprintf("the status of pod readiness gate %q is not \"True\", but %v", string(g), conds[i].Status))
		}
	}
	return strings.Join(msgs, ", ")
}
