package worker

import . "github.com/podlife/podlife/podlife/internal/api"

// A pod whose regular containers are done for good (restartPolicy Never or OnFailure), or whose
// init container failed under Never, still has its sidecars running: they would otherwise run
// forever, restarted whatever the pod's policy. The kubelet kills such a pod (computePodActions'
// KillPod once no regular container is to be kept or started), sidecars included, with their
// preStop hooks and in reverse order. Its getPhase counts a running sidecar as running: the
// phase of a pod whose regular containers ran stays Running until the sidecars have stopped; a
// failed init container under Never fails the pod at once. podlife does the same.

// completionPhaseOwned returns the phase to report for computed, and starts the pod's stop if
// computed is terminal while a sidecar is still running (or waiting for its restart).
// It runs on the pod's loop.
func (p *Worker) completionPhaseOwned(computed Phase, inits, apps []ContainerStatus) Phase {
	if p.terminated || computed != PhaseSucceeded && computed != PhaseFailed || !p.sidecarAliveOwned(inits) {
		return computed
	}
	if !p.stopping && !p.completing {
		p.completing = true
		go p.stopWith(p.lifeCtx, GracePeriod(&p.spec), true, nil)
	}
	appRan := false
	for _, c := range apps {
		appRan = appRan || c.State.Waiting == nil || c.LastState.Terminated != nil
	}
	if appRan && p.sidecarRunningOwned(inits) {
		return PhaseRunning
	}
	// An init container failed under Never (Failed at once), or the sidecars wait for a restart
	// that will not come (getPhase does not count them).
	return computed
}

// sidecarRunningOwned reports whether a sidecar's process runs.
func (p *Worker) sidecarRunningOwned(inits []ContainerStatus) bool {
	for _, c := range inits {
		if p.sidecars[c.Name] && c.State.Running != nil {
			return true
		}
	}
	return false
}

// sidecarAliveOwned reports whether a sidecar has run and has not ended for good.
func (p *Worker) sidecarAliveOwned(inits []ContainerStatus) bool {
	for _, c := range inits {
		if p.sidecars[c.Name] && c.State.Terminated == nil && (c.State.Running != nil || c.LastState.Terminated != nil) {
			return true
		}
	}
	return false
}
