package conditions

import "github.com/podlife/podlife/podlife/internal/api"

// Type is a pod condition's type, as in Kubernetes: one of the constants here, or a readiness
// gate's (a qualified name, PodSpec.ReadinessGates).
type Type = api.ConditionType

// Pod conditions, in the order the kubelet reports them, with Kubernetes' values.
const (
	// PodReadyToStartContainers ("PodReadyToStartContainers"): the pod's sandbox and network are
	// up.
	PodReadyToStartContainers = api.PodReadyToStartContainers
	// PodInitialized ("Initialized"): every init container completed (and every sidecar
	// started).
	PodInitialized = api.PodInitialized
	// PodReady ("Ready"): the pod is ready: its containers are, and its readiness gates are
	// True.
	PodReady = api.PodReady
	// ContainersReady ("ContainersReady"): every container is ready.
	ContainersReady = api.ContainersReady
	// PodScheduled ("PodScheduled"): always True on podlife, which has no scheduler.
	PodScheduled = api.PodScheduled
)

// AllContainersRestarting ("AllContainersRestarting") is the condition of a restart of all a
// pod's containers (a restartrule.ActionRestartAllContainers rule): True while they are
// stopped, False once they start again. A pod has it from its first restart of all.
const AllContainersRestarting = api.AllContainersRestarting

// Status is the status of a pod condition, as in Kubernetes. It is encoded in JSON as its
// string.
type Status = api.ConditionStatus

// Condition statuses, as in Kubernetes.
const (
	True    = api.ConditionTrue
	False   = api.ConditionFalse
	Unknown = api.ConditionUnknown
)
