package podlife

import "github.com/podlife/podlife/podlife/internal/api"

// PodCondition is one condition of a pod. Its fields are documented at [api.PodCondition].
type PodCondition = api.PodCondition

// EventType is Normal or Warning, as in Kubernetes events.
type EventType = api.EventType

// Event types.
const (
	EventNormal  = api.EventNormal
	EventWarning = api.EventWarning
)

// Event is something that happened to a pod or one of its containers. Its fields are documented at
// [api.Event].
type Event = api.Event

// PodField is a value of the running pod that an environment variable can take (EnvVar.From): the
// fields of Kubernetes' downward API that the kubelet knows only once the pod's sandbox exists.
// Its values are their Kubernetes field paths, as a manifest's fieldRef spells them:
// "status.podIP", "status.podIPs", "status.hostIP", "status.hostIPs" and "metadata.uid" (see
// [api.PodField] for what each resolves to).
type PodField = api.PodField

// Reason is a short CamelCase word saying why: an event's reason, a container's waiting or
// terminated reason, a pod's failure reason. Its values are the constants of package
// podlife/reasons, spelled as the kubelet's where the kubelet has one.
type Reason = api.Reason

// Phase is a pod's lifecycle phase, as in Kubernetes.
type Phase = api.Phase

// Pod phases.
const (
	PhasePending   = api.PhasePending
	PhaseRunning   = api.PhaseRunning
	PhaseSucceeded = api.PhaseSucceeded
	PhaseFailed    = api.PhaseFailed
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
