package status

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"maps"
	"strings"
	"time"
)

// Transition is a condition's status and the time it took it: its LastTransitionTime.
type Transition struct {
	Status ConditionStatus
	At     time.Time
}

// Transitions holds each condition's last transition, by type: what Conditions reads and
// returns, so that a condition keeps its transition time while its status stays.
type Transitions map[ConditionType]Transition

// Input is what a pod's conditions derive from.
type Input struct {
	// Phase is the pod's phase, as reported (see ComputePhase and Completion).
	Phase Phase
	// SandboxReady: the pod's sandbox is up. Terminated: every process is gone after a stop.
	SandboxReady, Terminated bool
	// Inits and Apps are the statuses of the init and app containers, in spec order.
	Inits, Apps []ContainerStatus
	// Sidecars names the restartable init containers.
	Sidecars map[string]bool
	// GatesMessage says why a readiness gate's condition is not True ("" when every one is):
	// the pod is then not Ready, whatever its containers.
	GatesMessage string
	// Custom are the conditions set with SetCondition, in the order first set: they follow.
	Custom []PodCondition
}

// Conditions computes a pod's conditions as the kubelet does (status/generate.go) at now:
// PodReadyToStartContainers, Initialized, Ready, ContainersReady, PodScheduled, then in.Custom.
// A condition whose status is the one prev holds keeps prev's transition time; the others
// take now. It returns prev with those changes (prev itself is not modified).
func Conditions(now time.Time, in Input, prev Transitions) ([]PodCondition, Transitions) {
	next, cloned := prev, false
	var conds []PodCondition
	add := func(t ConditionType, ok bool, reason, msg string) {
		status := boolStatus(ok)
		last, seen := next[t]
		at := now
		if seen && last.Status == status {
			at = last.At
		} else {
			if !cloned {
				next, cloned = maps.Clone(prev), true
				if next == nil {
					next = Transitions{}
				}
			}
			next[t] = Transition{Status: status, At: now}
		}
		if ok {
			reason, msg = "", ""
		}
		conds = append(conds, PodCondition{Type: t, Status: status, Reason: reason, Message: msg, LastTransitionTime: at})
	}
	terminal := in.Phase == PhaseSucceeded || in.Phase == PhaseFailed
	add(PodReadyToStartContainers, in.SandboxReady && !in.Terminated, "", "")

	switch {
	case in.Phase == PhaseSucceeded:
		add(PodInitialized, true, "", "")
		conds[len(conds)-1].Reason = "PodCompleted" // the kubelet's reason once the pod completed
	default:
		incomplete := Incomplete(in.Inits, in.Sidecars)
		add(PodInitialized, len(incomplete) == 0 || everRan(in.Apps), "ContainersNotInitialized",
			"containers with incomplete status: ["+strings.Join(incomplete, " ")+"]")
	}

	unready := Unready(in.Inits, in.Apps, in.Sidecars)
	reason, msg := "ContainersNotReady", "containers with unready status: ["+strings.Join(unready, " ")+"]"
	if terminal {
		reason, msg = "PodCompleted", ""
		if in.Phase == PhaseFailed {
			reason = "PodFailed"
		}
	}
	ready := len(unready) == 0 && !terminal
	// The pod is Ready when its containers are and every readiness gate's condition is True.
	podReady, podReason, podMsg := ready, reason, msg
	if ready && in.GatesMessage != "" {
		podReady, podReason, podMsg = false, "ReadinessGatesNotReady", in.GatesMessage
	}
	add(PodReady, podReady, podReason, podMsg)
	add(ContainersReady, ready, reason, msg)
	add(PodScheduled, true, "", "")
	return append(conds, in.Custom...), next
}

func boolStatus(b bool) ConditionStatus {
	if b {
		return ConditionTrue
	}
	return ConditionFalse
}
