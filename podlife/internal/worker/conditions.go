package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"strings"
	"time"

	"github.com/podlife/podlife/podlife/internal/worker/podupdate"
)

func boolStatus(b bool) ConditionStatus {
	if b {
		return ConditionTrue
	}
	return ConditionFalse
}

// conditionsOwned computes the conditions as the kubelet does (status/generate.go), keeping
// each one's last transition time; the conditions set with SetCondition follow.
func (p *Worker) conditionsOwned(inits, apps []ContainerStatus) []PodCondition {
	now := time.Now()
	var conds []PodCondition
	add := func(t ConditionType, ok bool, reason, msg string) {
		status := boolStatus(ok)
		prev, seen := p.condTimes[t]
		at := now
		if seen && prev.status == status {
			at = prev.at
		} else {
			p.condTimes[t] = condTime{status: status, at: now}
		}
		if ok {
			reason, msg = "", ""
		}
		conds = append(conds, PodCondition{Type: t, Status: status, Reason: reason, Message: msg, LastTransitionTime: at})
	}
	terminal := p.phase == PhaseSucceeded || p.phase == PhaseFailed
	add(PodReadyToStartContainers, p.sandboxReady && !p.terminated, "", "")

	var incomplete []string
	everRan := false
	for _, c := range apps {
		everRan = everRan || c.State.Running != nil || c.State.Terminated != nil || c.LastState.Terminated != nil
	}
	for i, c := range inits {
		if p.inits[i].sidecar {
			if !c.Started {
				incomplete = append(incomplete, c.Name)
			}
		} else if t := c.State.Terminated; t == nil || t.ExitCode != 0 {
			incomplete = append(incomplete, c.Name)
		}
	}
	switch {
	case p.phase == PhaseSucceeded:
		add(PodInitialized, true, "", "")
		conds[len(conds)-1].Reason = "PodCompleted" // the kubelet's reason once the pod completed
	default:
		add(PodInitialized, len(incomplete) == 0 || everRan, "ContainersNotInitialized",
			"containers with incomplete status: ["+strings.Join(incomplete, " ")+"]")
	}

	var unready []string
	for i, c := range inits {
		if p.inits[i].sidecar && !c.Ready {
			unready = append(unready, c.Name)
		}
	}
	for _, c := range apps {
		if !c.Ready {
			unready = append(unready, c.Name)
		}
	}
	reason, msg := "ContainersNotReady", "containers with unready status: ["+strings.Join(unready, " ")+"]"
	if terminal {
		reason, msg = "PodCompleted", ""
		if p.phase == PhaseFailed {
			reason = "PodFailed"
		}
	}
	ready := len(unready) == 0 && !terminal
	// The pod is Ready when its containers are and every readiness gate's condition is True.
	podReady, podReason, podMsg := ready, reason, msg
	if gm := podupdate.GatesMessage(p.spec.ReadinessGates, p.custom); ready && gm != "" {
		podReady, podReason, podMsg = false, "ReadinessGatesNotReady", gm
	}
	add(PodReady, podReady, podReason, podMsg)
	add(ContainersReady, ready, reason, msg)
	add(PodScheduled, true, "", "")
	return append(conds, p.custom...)
}

type condTime struct {
	status ConditionStatus
	at     time.Time
}
