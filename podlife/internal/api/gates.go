package api

import (
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ConditionStatus is the status of a pod condition, as in Kubernetes. It is encoded in JSON as
// its string.
type ConditionStatus string

// Condition statuses, as in Kubernetes.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// validateReadinessGates checks the gates' condition types as the API server does.
func validateReadinessGates(p *field.Path, gates []ConditionType) field.ErrorList {
	var errs field.ErrorList
	for i, g := range gates {
		for _, msg := range validation.IsQualifiedName(string(g)) {
			errs = append(errs, field.Invalid(p.Index(i).Child("conditionType"), g, msg))
		}
	}
	return errs
}
