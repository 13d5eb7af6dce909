package status

import . "github.com/podlife/podlife/podlife/internal/api"

// RestartsFunc reports whether the container named name, having exited with code, is restarted
// (the kubelet's ContainerShouldRestart; see api.RestartsAfter).
type RestartsFunc func(name string, code int) bool

// ByPolicy decides restarts by the pod's policy alone, for statuses without their spec.
func ByPolicy(policy RestartPolicy) RestartsFunc {
	return func(_ string, code int) bool { return RestartsAfter(&ContainerSpec{}, policy, code) }
}

// ComputePhase applies the kubelet's getPhase rules (ContainerRestartRules on) to the container
// statuses. restarts decides whether an exited container is restarted: a pod with one that will
// is not Succeeded or Failed. sidecars names the restartable init containers: a sidecar's exits
// never decide the phase (it is restarted whatever the pod's policy); one not started yet keeps
// the pod Pending.
func ComputePhase(restarts RestartsFunc, stopping bool, initStatuses, statuses []ContainerStatus, sidecars map[string]bool) Phase {
	pendingInit, failedInit := 0, 0
	for _, c := range initStatuses {
		switch {
		case sidecars[c.Name]:
			if !c.Started && c.State.Terminated == nil && c.LastState.Terminated == nil {
				pendingInit++
			}
		case c.State.Terminated != nil && c.State.Terminated.ExitCode == 0:
		case c.State.Terminated != nil:
			if !restarts(c.Name, c.State.Terminated.ExitCode) {
				failedInit++
			}
		case c.State.Waiting != nil && c.LastState.Terminated != nil && c.LastState.Terminated.ExitCode != 0:
			// a failed init container waiting for its restart
			if !restarts(c.Name, c.LastState.Terminated.ExitCode) {
				failedInit++
			}
		default:
			pendingInit++
		}
	}
	if failedInit > 0 {
		return PhaseFailed // a failed init container that will not restart
	}
	running, stopped, succeeded, waiting, final := 0, 0, 0, 0, 0
	everRan := false
	for _, c := range statuses {
		switch {
		case c.State.Running != nil:
			running++
			everRan = true
		case c.State.Terminated != nil:
			stopped++
			everRan = true
			if c.State.Terminated.ExitCode == 0 {
				succeeded++
			}
			if !restarts(c.Name, c.State.Terminated.ExitCode) {
				final++
			}
		case c.LastState.Terminated != nil:
			stopped++
			everRan = true
			if !restarts(c.Name, c.LastState.Terminated.ExitCode) {
				final++
			}
		default:
			waiting++
		}
	}
	if (pendingInit > 0 && !everRan || waiting > 0) && !(stopping && running == 0) {
		return PhasePending
	}
	switch {
	case running > 0:
		return PhaseRunning
	case stopped > 0:
		if stopping {
			if succeeded == stopped && waiting == 0 {
				return PhaseSucceeded
			}
			return PhaseFailed
		}
		switch {
		case stopped != final:
			return PhaseRunning // at least one container is restarting
		case succeeded == stopped:
			return PhaseSucceeded
		default:
			return PhaseFailed
		}
	}
	if stopping {
		return PhaseFailed
	}
	return PhasePending
}
