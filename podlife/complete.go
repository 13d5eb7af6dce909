package podlife

// A pod whose regular containers are done for good (restartPolicy Never or OnFailure), or whose
// init container failed under Never, still has its sidecars running: they would otherwise run
// forever, restarted whatever the pod's policy. The kubelet kills such a pod (computePodActions'
// KillPod once no regular container is to be kept or started), sidecars included, with their
// preStop hooks and in reverse order, and reports the terminal phase only once every container
// has stopped. podlife does the same: the phase stays Running (Pending if no regular container
// ever ran) until the stop is over.

// completionPhaseLocked returns the phase to report for computed, and starts the pod's stop if
// computed is terminal while a sidecar is still running (or waiting for its restart).
// p.mu is held.
func (p *Pod) completionPhaseLocked(computed Phase, inits, apps []ContainerStatus) Phase {
	if p.terminated || computed != PhaseSucceeded && computed != PhaseFailed || !p.sidecarAliveLocked(inits) {
		return computed
	}
	if !p.stopping && !p.completing {
		p.completing = true
		go p.stopWith(p.lifeCtx, p.spec.gracePeriod(), true, nil)
	}
	for _, c := range apps {
		if c.State.Waiting == nil || c.LastState.Terminated != nil {
			return PhaseRunning
		}
	}
	return PhasePending
}

// sidecarAliveLocked reports whether a sidecar has run and has not ended for good.
func (p *Pod) sidecarAliveLocked(inits []ContainerStatus) bool {
	for _, c := range inits {
		if p.sidecars[c.Name] && c.State.Terminated == nil && (c.State.Running != nil || c.LastState.Terminated != nil) {
			return true
		}
	}
	return false
}
