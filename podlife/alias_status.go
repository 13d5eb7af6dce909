package podlife

import "github.com/podlife/podlife/podlife/internal/api"

// ConditionType is a pod condition, as in Kubernetes.
type ConditionType = api.ConditionType

// Pod conditions, in the order the kubelet reports them.
const (
	PodReadyToStartContainers = api.PodReadyToStartContainers
	PodInitialized            = api.PodInitialized
	PodReady                  = api.PodReady
	ContainersReady           = api.ContainersReady
	PodScheduled              = api.PodScheduled
)

// PodCondition is one condition of a pod. Its fields are documented at [api.PodCondition].
type PodCondition = api.PodCondition

// EventType is Normal or Warning, as in Kubernetes events.
type EventType = api.EventType

// Event types.
const (
	EventNormal  = api.EventNormal
	EventWarning = api.EventWarning
)

// Event reasons.
const (
	// kubelet.
	ReasonPulling = api.ReasonPulling
	// kubelet.
	ReasonPulled = api.ReasonPulled
	// kubelet: pull, create or start failed.
	ReasonFailed = api.ReasonFailed
	// kubelet.
	ReasonErrImageNeverPull = api.ReasonErrImageNeverPull
	// kubelet.
	ReasonCreated = api.ReasonCreated
	// kubelet.
	ReasonStarted = api.ReasonStarted
	// kubelet.
	ReasonKilling = api.ReasonKilling
	// kubelet: crash-loop back-off.
	ReasonBackOff = api.ReasonBackOff
	// kubelet: a probe failed.
	ReasonUnhealthy = api.ReasonUnhealthy
	// kubelet: a probe succeeded with a warning.
	ReasonProbeWarning = api.ReasonProbeWarning
	// kubelet: activeDeadlineSeconds.
	ReasonDeadlineExceeded = api.ReasonDeadlineExceeded
	// kubelet.
	ReasonFailedPostStartHook = api.ReasonFailedPostStartHook
	// kubelet.
	ReasonFailedPreStopHook = api.ReasonFailedPreStopHook
	ReasonLifecycleFallback = api.ReasonLifecycleFallback
	// kubelet.
	ReasonFailedCreateSandbox = api.ReasonFailedCreateSandbox
	// podlife: namespaces pinned and network attached.
	ReasonSandboxReady = api.ReasonSandboxReady
	// podlife: a postStart hook returned successfully.
	ReasonPostStartCompleted = api.ReasonPostStartCompleted
	// podlife: a container's process exited.
	ReasonExited = api.ReasonExited
	// podlife: every container stopped, network released.
	ReasonStopped = api.ReasonStopped
	// podlife: everything of the pod deleted.
	ReasonRemoved = api.ReasonRemoved
	// podlife: a slow subscriber missed events.
	ReasonEventsDropped = api.ReasonEventsDropped
	// podlife: containerd stopped answering; the containers are left as they are while the runtime
	// reconnects (Warning).
	ReasonContainerdUnavailable = api.ReasonContainerdUnavailable
	// podlife: containerd answers again; the containers are followed again.
	ReasonContainerdRecovered = api.ReasonContainerdRecovered
	// podlife: the start policy had not returned when a stop cancelled it; the stop went on without
	// it, and the policy can start nothing more (Warning).
	ReasonStartPolicyAbandoned = api.ReasonStartPolicyAbandoned
	// kubelet: the pod's sandbox died.
	ReasonSandboxChanged = api.ReasonSandboxChanged
)

// Event is something that happened to a pod or one of its containers. Its fields are documented at
// [api.Event].
type Event = api.Event

// ConditionStatus is the status of a pod condition, as in Kubernetes.
type ConditionStatus = api.ConditionStatus

// Condition statuses, as in Kubernetes.
const (
	ConditionTrue    = api.ConditionTrue
	ConditionFalse   = api.ConditionFalse
	ConditionUnknown = api.ConditionUnknown
)

// PodField is a value of the running pod that an environment variable can take (EnvVar.From): the
// fields of Kubernetes' downward API that the kubelet knows only once the pod's sandbox exists.
type PodField = api.PodField

// The pod fields an EnvVar can take.
const (
	// FieldPodIP is the pod's IP address (status.podIP); with HostNetwork, the host's first address
	// (see Config.HostIPs), as under a kubelet.
	FieldPodIP = api.FieldPodIP
	// FieldPodIPs is the pod's IP addresses, comma-separated (status.podIPs); podlife gives a pod one,
	// so it is FieldPodIP's value (with HostNetwork, the host's addresses).
	FieldPodIPs = api.FieldPodIPs
	// FieldHostIP is the host's first address (status.hostIP): Config.HostIPs[0].
	FieldHostIP = api.FieldHostIP
	// FieldHostIPs is the host's addresses, comma-separated (status.hostIPs): Config.HostIPs.
	FieldHostIPs = api.FieldHostIPs
	// FieldPodUID is the pod's UID (metadata.uid): Pod.UID, a random identifier of this pod instance.
	FieldPodUID = api.FieldPodUID
)

// Reason is a short CamelCase word saying why: an event's reason, a container's waiting or
// terminated reason, a pod's failure reason.
type Reason = api.Reason

// Event reasons of adoption.
const (
	// ReasonAdopted: a process took over the pod's supervision (Runtime.Adopt).
	ReasonAdopted = api.ReasonAdopted
	// ReasonStartInterrupted: the adopted pod's start sequence had not finished when its manager died;
	// it is stopped and left for Remove.
	ReasonStartInterrupted = api.ReasonStartInterrupted
	// ReasonLogsNotFollowed: the adopted pod's containers wrote their output to the previous manager
	// (no Config.ContainerLogger): nothing logs their current attempts.
	ReasonLogsNotFollowed = api.ReasonLogsNotFollowed
)

// Phase is a pod's lifecycle phase, as in Kubernetes.
type Phase = api.Phase

// Pod phases.
const (
	PhasePending   = api.PhasePending
	PhaseRunning   = api.PhaseRunning
	PhaseSucceeded = api.PhaseSucceeded
	PhaseFailed    = api.PhaseFailed
)

// Container waiting and terminated reasons, as the kubelet reports them.
const (
	ReasonContainerCreating      = api.ReasonContainerCreating
	ReasonPodInitializing        = api.ReasonPodInitializing
	ReasonPostStartHookError     = api.ReasonPostStartHookError
	ReasonErrImagePull           = api.ReasonErrImagePull
	ReasonImagePullBackOff       = api.ReasonImagePullBackOff
	ReasonCreateContainerError   = api.ReasonCreateContainerError
	ReasonRunContainerError      = api.ReasonRunContainerError
	ReasonCompleted              = api.ReasonCompleted
	ReasonError                  = api.ReasonError
	ReasonOOMKilled              = api.ReasonOOMKilled
	ReasonContainerStatusUnknown = api.ReasonContainerStatusUnknown
	ReasonCrashLoopBackOff       = api.ReasonCrashLoopBackOff
)

// PodStatus is a snapshot of a pod, shaped like Kubernetes' PodStatus. Its fields are documented at
// [api.PodStatus].
type PodStatus = api.PodStatus

// ContainerStatus is a snapshot of one container, shaped like Kubernetes' ContainerStatus. Its
// fields are documented at [api.ContainerStatus].
type ContainerStatus = api.ContainerStatus

// ContainerState is exactly one of Waiting, Running or Terminated. Its fields are documented at
// [api.ContainerState].
type ContainerState = api.ContainerState

// StateWaiting is a container not running yet (or waiting to restart). Its fields are documented at
// [api.StateWaiting].
type StateWaiting = api.StateWaiting

// StateRunning is a running container. Its fields are documented at [api.StateRunning].
type StateRunning = api.StateRunning

// StateTerminated is a container whose process exited. Its fields are documented at
// [api.StateTerminated].
type StateTerminated = api.StateTerminated
