package api

import (
	"time"
)

// ConditionType is a pod condition, as in Kubernetes.
type ConditionType string

// Pod conditions, in the order the kubelet reports them.
const (
	PodReadyToStartContainers ConditionType = "PodReadyToStartContainers"
	PodInitialized            ConditionType = "Initialized"
	PodReady                  ConditionType = "Ready"
	ContainersReady           ConditionType = "ContainersReady"
	PodScheduled              ConditionType = "PodScheduled"
)

// PodCondition is one condition of a pod.
type PodCondition struct {
	Type               ConditionType   `json:"type"`
	Status             ConditionStatus `json:"status"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
	LastTransitionTime time.Time       `json:"lastTransitionTime"`
}

// Condition returns the pod's condition of that type (zero if unknown).
func (s PodStatus) Condition(t ConditionType) PodCondition {
	for _, c := range s.Conditions {
		if c.Type == t {
			return c
		}
	}
	return PodCondition{}
}
