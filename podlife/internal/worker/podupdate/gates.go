package podupdate

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

// SetCondition sets condition t of conds, the conditions set from outside in the order first
// set, to status, reason and message, and returns them. The condition's last transition time
// becomes now when it is new or its status changes.
func SetCondition(conds []PodCondition, t ConditionType, status ConditionStatus, reason, message string, now time.Time) []PodCondition {
	i := slices.IndexFunc(conds, func(c PodCondition) bool { return c.Type == t })
	if i < 0 {
		conds = append(conds, PodCondition{Type: t, LastTransitionTime: now})
		i = len(conds) - 1
	}
	c := &conds[i]
	if c.Status != status {
		c.LastTransitionTime = now
	}
	c.Status, c.Reason, c.Message = status, reason, message
	return conds
}

// GatesMessage returns why the readiness gates hold the pod back, in the kubelet's words
// (status/generate.go), or "" when every gate's condition is True.
func GatesMessage(gates []ConditionType, conds []PodCondition) string {
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
