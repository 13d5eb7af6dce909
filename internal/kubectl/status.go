// Package kubectl formats podlife's pod statuses as kubectl prints them, for the CLI and the
// examples.
//
// It imports package podlife (it formats its statuses); package podlife must never import it.
package kubectl

import (
	"strconv"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
)

// Status returns what kubectl's STATUS column would show: a container's waiting or terminated
// reason where it explains the pod, "Terminating" while stopping, else the phase.
func Status(s podlife.PodStatus) string {
	if s.Stopping && s.Phase != podlife.PhaseSucceeded && s.Phase != podlife.PhaseFailed {
		return "Terminating"
	}
	for _, c := range s.InitContainerStatuses {
		if t := c.State.Terminated; t != nil && t.ExitCode == 0 {
			continue
		}
		if w := c.State.Waiting; w != nil && w.Reason != "" && w.Reason != reasons.PodInitializing {
			return "Init:" + string(w.Reason)
		}
		return "Init:" + strconv.Itoa(countDone(s.InitContainerStatuses)) + "/" + strconv.Itoa(len(s.InitContainerStatuses))
	}
	reason := string(s.Phase)
	if s.Reason != "" {
		reason = string(s.Reason)
	}
	running := false
	for _, c := range s.ContainerStatuses {
		switch {
		case c.State.Waiting != nil && c.State.Waiting.Reason != "":
			reason = string(c.State.Waiting.Reason)
		case c.State.Terminated != nil && c.State.Terminated.Reason != "":
			reason = string(c.State.Terminated.Reason)
		case c.State.Running != nil:
			running = true
		}
	}
	if reason == string(reasons.Completed) && running {
		return string(podlife.PhaseRunning)
	}
	return reason
}

func countDone(cs []podlife.ContainerStatus) int {
	n := 0
	for _, c := range cs {
		if t := c.State.Terminated; t != nil && t.ExitCode == 0 {
			n++
		}
	}
	return n
}
