package status

import . "github.com/podlife/podlife/podlife/internal/api"

// Unready names the containers that keep a pod from being Ready (ContainersReady): the sidecars
// (restartable init containers, named in sidecars) and app containers whose status is not
// Ready, in spec order. Other init containers do not count.
func Unready(inits, apps []ContainerStatus, sidecars map[string]bool) []string {
	var unready []string
	for _, c := range inits {
		if sidecars[c.Name] && !c.Ready {
			unready = append(unready, c.Name)
		}
	}
	for _, c := range apps {
		if !c.Ready {
			unready = append(unready, c.Name)
		}
	}
	return unready
}

// Incomplete names the init containers that keep a pod from being Initialized, in spec order:
// a sidecar not started yet, another init container that has not exited with code 0.
func Incomplete(inits []ContainerStatus, sidecars map[string]bool) []string {
	var incomplete []string
	for _, c := range inits {
		if sidecars[c.Name] {
			if !c.Started {
				incomplete = append(incomplete, c.Name)
			}
		} else if t := c.State.Terminated; t == nil || t.ExitCode != 0 {
			incomplete = append(incomplete, c.Name)
		}
	}
	return incomplete
}

// everRan reports whether an app container has run: the pod is then Initialized whatever its
// init containers (the kubelet's: an init container restarted later does not undo it).
func everRan(apps []ContainerStatus) bool {
	for _, c := range apps {
		if c.State.Running != nil || c.State.Terminated != nil || c.LastState.Terminated != nil {
			return true
		}
	}
	return false
}
