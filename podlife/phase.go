package podlife

// computePhase applies the kubelet's getPhase rules to the container statuses. sidecars names
// the restartable init containers: a sidecar's exits never decide the phase (it is restarted
// whatever the pod's policy); one not started yet keeps the pod Pending.
func computePhase(policy RestartPolicy, stopping bool, initStatuses, statuses []ContainerStatus, sidecars map[string]bool) Phase {
	pendingInit, failedInit := 0, 0
	for _, c := range initStatuses {
		switch {
		case sidecars[c.Name]:
			if !c.Started && c.State.Terminated == nil && c.LastState.Terminated == nil {
				pendingInit++
			}
		case c.State.Terminated != nil && c.State.Terminated.ExitCode == 0:
		case c.State.Terminated != nil:
			failedInit++
		case c.State.Waiting != nil && c.LastState.Terminated != nil && c.LastState.Terminated.ExitCode != 0:
			failedInit++ // a failed init container waiting for its restart
		default:
			pendingInit++
		}
	}
	if failedInit > 0 && policy == RestartNever {
		return PhaseFailed
	}
	running, stopped, succeeded, waiting := 0, 0, 0, 0
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
		case c.LastState.Terminated != nil:
			stopped++
			everRan = true
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
		case policy == RestartAlways || policy == "":
			return PhaseRunning
		case succeeded == stopped:
			return PhaseSucceeded
		case policy == RestartNever:
			return PhaseFailed
		default:
			return PhaseRunning
		}
	}
	if stopping {
		return PhaseFailed
	}
	return PhasePending
}
