package api

import (
	"fmt"
	"time"
)

// EventType is Normal or Warning, as in Kubernetes events.
type EventType string

// Event types.
const (
	EventNormal  EventType = "Normal"
	EventWarning EventType = "Warning"
)

// Event reasons. Those marked "kubelet" carry the kubelet's reason and message shape; the others
// are podlife's own, for moments the kubelet does not report (useful for timelines).
const (
	ReasonPulling             Reason = "Pulling"             // kubelet
	ReasonPulled              Reason = "Pulled"              // kubelet
	ReasonFailed              Reason = "Failed"              // kubelet: pull, create or start failed
	ReasonErrImageNeverPull   Reason = "ErrImageNeverPull"   // kubelet
	ReasonCreated             Reason = "Created"             // kubelet
	ReasonStarted             Reason = "Started"             // kubelet
	ReasonKilling             Reason = "Killing"             // kubelet
	ReasonBackOff             Reason = "BackOff"             // kubelet: crash-loop back-off
	ReasonUnhealthy           Reason = "Unhealthy"           // kubelet: a probe failed
	ReasonProbeWarning        Reason = "ProbeWarning"        // kubelet: a probe succeeded with a warning
	ReasonDeadlineExceeded    Reason = "DeadlineExceeded"    // kubelet: activeDeadlineSeconds
	ReasonFailedPostStartHook Reason = "FailedPostStartHook" // kubelet
	ReasonFailedPreStopHook   Reason = "FailedPreStopHook"   // kubelet
	ReasonLifecycleFallback   Reason = "LifecycleHTTPFallback"
	ReasonFailedCreateSandbox Reason = "FailedCreatePodSandBox" // kubelet
	ReasonSandboxReady        Reason = "SandboxReady"           // podlife: namespaces pinned and network attached
	ReasonPostStartCompleted  Reason = "PostStartHookCompleted" // podlife: a postStart hook returned successfully
	ReasonExited              Reason = "Exited"                 // podlife: a container's process exited
	ReasonStopped             Reason = "Stopped"                // podlife: every container stopped, network released
	ReasonRemoved             Reason = "Removed"                // podlife: everything of the pod deleted
	ReasonEventsDropped       Reason = "EventsDropped"          // podlife: a slow subscriber missed events
	// podlife: containerd stopped answering; the containers are left as they are while the
	// runtime reconnects (Warning).
	ReasonContainerdUnavailable Reason = "ContainerdUnavailable"
	// podlife: containerd answers again; the containers are followed again.
	ReasonContainerdRecovered Reason = "ContainerdRecovered"
	// podlife: the start policy had not returned when a stop cancelled it; the stop went on
	// without it, and the policy can start nothing more (Warning).
	ReasonStartPolicyAbandoned Reason = "StartPolicyAbandoned"
	// kubelet: the pod's sandbox died. In podlife only a pod's pause (ShareProcessNamespace)
	// can: its PID namespace, and every process in it, is gone with it, so the pod is stopped
	// and fails with this reason (the kubelet would recreate the sandbox) (Warning).
	ReasonSandboxChanged Reason = "SandboxChanged"
)

// Event is something that happened to a pod or one of its containers. Time is when it happened,
// not when it was delivered.
type Event struct {
	Time      time.Time `json:"time"`
	Pod       string    `json:"pod"`
	Container string    `json:"container,omitempty"`
	Type      EventType `json:"type"`
	Reason    Reason    `json:"reason"`
	Message   string    `json:"message,omitempty"`
}

// String formats the event like a `kubectl get events` line.
func (e Event) String() string {
	obj := "pod/" + e.Pod
	if e.Container != "" {
		obj += "{" + e.Container + "}"
	}
	return fmt.Sprintf("%s %-7s %-22s %s %s", e.Time.Format("15:04:05.000"), e.Type, e.Reason, obj, e.Message)
}
