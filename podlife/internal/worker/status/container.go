package status

import (
	"time"

	. "github.com/podlife/podlife/podlife/internal/api"
)

// Container is one container's status as its pod's worker keeps it across the container's
// instances, with its transitions. The worker keeps one per container in an unexported field
// and reads or changes it only on the pod's loop; the methods do no I/O.
type Container struct {
	ImageID          string
	State, LastState ContainerState
	Started, Ready   bool
	RestartCount     int
	// HookFailed is the postStart failure of the current instance, for the waiting state it
	// leaves (Exit).
	HookFailed string
}

// Kind is what a container's status depends on besides its state.
type Kind struct {
	Init, Sidecar, Ephemeral bool
}

// NewContainer is the status of a container not created yet: waiting in ContainerCreating, or
// in PodInitializing for every container of a pod with init containers (the kubelet's).
func NewContainer(hasInits bool) Container {
	var c Container
	c.Wait(Creating(hasInits), "")
	return c
}

// Creating is the waiting reason of a container not created yet (see NewContainer).
func Creating(hasInits bool) Reason {
	if hasInits {
		return ReasonPodInitializing
	}
	return ReasonContainerCreating
}

// Wait sets a waiting state.
func (c *Container) Wait(reason Reason, msg string) {
	c.State = ContainerState{Waiting: &StateWaiting{Reason: reason, Message: msg}}
}

// Run records that the current instance's process started at t.
func (c *Container) Run(t time.Time) {
	c.HookFailed = ""
	c.State = ContainerState{Running: &StateRunning{StartedAt: t}}
}

// MarkStarted marks a running container started (its startup probe passed, or it has none):
// ready at once unless it has a readiness probe. It reports whether the container runs.
func (c *Container) MarkStarted(readinessProbe bool) bool {
	if c.State.Running == nil {
		return false
	}
	c.Started, c.Ready = true, !readinessProbe
	return true
}

// SetReady sets a running, started container's readiness from its readiness probe's result.
func (c *Container) SetReady(ok bool) {
	if c.State.Running != nil {
		c.Ready = c.Started && ok
	}
}

// Exit records the current instance's exit: terminated with term, or, after a failed postStart
// hook when a restart will follow (restarts), the kubelet's waiting PostStartHookError with term
// as its last state.
func (c *Container) Exit(term *StateTerminated, restarts func() bool) {
	c.Ready, c.Started = false, false
	if c.HookFailed != "" && restarts() {
		c.LastState = ContainerState{Terminated: term}
		c.Wait(ReasonPostStartHookError, c.HookFailed)
		return
	}
	c.State = ContainerState{Terminated: term}
}

// Status is the container's status, of name and image, whose current instance is id ("" for
// none); the resources are the caller's.
func (c *Container) Status(name, image, id string, k Kind) ContainerStatus {
	st := ContainerStatus{Name: name, Image: image, ImageID: c.ImageID, State: c.State, LastState: c.LastState,
		Ready: c.Ready, Started: c.Started, RestartCount: c.RestartCount}
	if k.Init && !k.Sidecar {
		// The kubelet: a regular init container is ready once it completed, not while it runs.
		t := c.State.Terminated
		st.Ready = t != nil && t.ExitCode == 0
	}
	if k.Ephemeral {
		// The kubelet's prober never reports on ephemeral containers.
		st.Ready, st.Started = false, false
	}
	if id != "" {
		st.ContainerID = "containerd://" + id
	}
	return st
}
