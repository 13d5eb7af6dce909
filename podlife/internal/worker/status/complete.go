package status

import . "github.com/podlife/podlife/podlife/internal/api"

// A pod whose regular containers are done for good (restartPolicy Never or OnFailure), or whose
// init container failed under Never, still has its sidecars running: they would otherwise run
// forever, restarted whatever the pod's policy. The kubelet kills such a pod (computePodActions'
// KillPod once no regular container is to be kept or started), sidecars included, with their
// preStop hooks and in reverse order. Its getPhase counts a running sidecar as running: the
// phase of a pod whose regular containers ran stays Running until the sidecars have stopped; a
// failed init container under Never fails the pod at once. podlife does the same.

// Completion returns the phase to report for computed (ComputePhase's), and whether the pod
// must be stopped because computed is terminal while a sidecar (named in sidecars) is still
// alive. terminated: every process is gone after a stop (the phase is then final as computed).
func Completion(computed Phase, terminated bool, inits, apps []ContainerStatus, sidecars map[string]bool) (phase Phase, stop bool) {
	if terminated || computed != PhaseSucceeded && computed != PhaseFailed || !SidecarAlive(inits, sidecars) {
		return computed, false
	}
	appRan := false
	for _, c := range apps {
		appRan = appRan || c.State.Waiting == nil || c.LastState.Terminated != nil
	}
	if appRan && SidecarRunning(inits, sidecars) {
		return PhaseRunning, true
	}
	// An init container failed under Never (Failed at once), or the sidecars wait for a restart
	// that will not come (getPhase does not count them).
	return computed, true
}

// SidecarRunning reports whether a sidecar's process runs.
func SidecarRunning(inits []ContainerStatus, sidecars map[string]bool) bool {
	for _, c := range inits {
		if sidecars[c.Name] && c.State.Running != nil {
			return true
		}
	}
	return false
}

// SidecarAlive reports whether a sidecar has run and has not ended for good.
func SidecarAlive(inits []ContainerStatus, sidecars map[string]bool) bool {
	for _, c := range inits {
		if sidecars[c.Name] && c.State.Terminated == nil && (c.State.Running != nil || c.LastState.Terminated != nil) {
			return true
		}
	}
	return false
}
