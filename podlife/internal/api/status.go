package api

import (
	"net/netip"
	"time"
)

// Phase is a pod's lifecycle phase, as in Kubernetes.
type Phase string

// Pod phases.
const (
	PhasePending   Phase = "Pending"
	PhaseRunning   Phase = "Running"
	PhaseSucceeded Phase = "Succeeded"
	PhaseFailed    Phase = "Failed"
)

// Container waiting and terminated reasons, as the kubelet reports them.
const (
	ReasonContainerCreating      Reason = "ContainerCreating"
	ReasonPodInitializing        Reason = "PodInitializing"
	ReasonPostStartHookError     Reason = "PostStartHookError"
	ReasonErrImagePull           Reason = "ErrImagePull"
	ReasonImagePullBackOff       Reason = "ImagePullBackOff"
	ReasonCreateContainerError   Reason = "CreateContainerError"
	ReasonRunContainerError      Reason = "RunContainerError"
	ReasonCompleted              Reason = "Completed"
	ReasonError                  Reason = "Error"
	ReasonOOMKilled              Reason = "OOMKilled"
	ReasonContainerStatusUnknown Reason = "ContainerStatusUnknown"
	ReasonCrashLoopBackOff       Reason = "CrashLoopBackOff"
)

// PodStatus is a snapshot of a pod, shaped like Kubernetes' PodStatus.
type PodStatus struct {
	Name      string     `json:"name"`
	Phase     Phase      `json:"phase"`
	Reason    Reason     `json:"reason,omitempty"`
	Message   string     `json:"message,omitempty"`
	PodIP     netip.Addr `json:"podIP,omitzero"`
	StartTime time.Time  `json:"startTime,omitzero"`
	// Stopping is true from the moment a stop was asked for (kubectl shows "Terminating").
	Stopping              bool              `json:"stopping,omitempty"`
	Conditions            []PodCondition    `json:"conditions,omitempty"`
	InitContainerStatuses []ContainerStatus `json:"initContainerStatuses,omitempty"`
	ContainerStatuses     []ContainerStatus `json:"containerStatuses"`
	// EphemeralContainerStatuses are the containers added by Pod.AddEphemeralContainer, in
	// the order added. They count in neither the phase nor the conditions.
	EphemeralContainerStatuses []ContainerStatus `json:"ephemeralContainerStatuses,omitempty"`
}

// ContainerStatus is a snapshot of one container, shaped like Kubernetes' ContainerStatus.
type ContainerStatus struct {
	Name         string         `json:"name"`
	Image        string         `json:"image"`
	ImageID      string         `json:"imageID,omitempty"`
	ContainerID  string         `json:"containerID,omitempty"`
	State        ContainerState `json:"state"`
	LastState    ContainerState `json:"lastState"`
	Ready        bool           `json:"ready"`
	Started      bool           `json:"started"`
	RestartCount int            `json:"restartCount"`
	// AllocatedResources are the CPU and memory the container is to run with: its spec's,
	// or those of the last resize accepted (Pod.Resize); the next instance is created with
	// them (Kubernetes' allocatedResources and its spec as resized).
	AllocatedResources Resources `json:"allocatedResources,omitzero"`
	// Resources are those the running instance's cgroup was given (created with, or updated
	// to by a resize); nil while no instance runs (Kubernetes' status resources).
	Resources *Resources `json:"resources,omitempty"`
}

// ContainerState is exactly one of Waiting, Running or Terminated.
type ContainerState struct {
	Waiting    *StateWaiting    `json:"waiting,omitempty"`
	Running    *StateRunning    `json:"running,omitempty"`
	Terminated *StateTerminated `json:"terminated,omitempty"`
}

// StateWaiting is a container not running yet (or waiting to restart).
type StateWaiting struct {
	Reason  Reason `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// StateRunning is a running container.
type StateRunning struct {
	StartedAt time.Time `json:"startedAt"`
}

// TerminatedAt is the terminated state of a process that exited with code, as the kubelet
// reports it: reason Completed for 0, else Error; a code 128+N of a signal N gives Signal N.
func TerminatedAt(code int, started, finished time.Time) *StateTerminated {
	t := &StateTerminated{ExitCode: code, Reason: ReasonCompleted, StartedAt: started, FinishedAt: finished}
	if code != 0 {
		t.Reason = ReasonError
	}
	if code > 128 && code < 128+65 {
		t.Signal = code - 128
	}
	return t
}

// StateTerminated is a container whose process exited.
type StateTerminated struct {
	ExitCode   int       `json:"exitCode"`
	Signal     int       `json:"signal,omitempty"`
	Reason     Reason    `json:"reason,omitempty"`
	Message    string    `json:"message,omitempty"`
	StartedAt  time.Time `json:"startedAt,omitzero"`
	FinishedAt time.Time `json:"finishedAt,omitzero"`
}

// ReadyCount returns how many of the regular containers are ready, and how many there are
// (kubectl's READY column).
func (s PodStatus) ReadyCount() (ready, total int) {
	for _, c := range s.ContainerStatuses {
		if c.Ready {
			ready++
		}
	}
	return ready, len(s.ContainerStatuses)
}
