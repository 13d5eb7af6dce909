package reasons

import "github.com/podlife/podlife/podlife/internal/api"

// A container's waiting and terminated reasons (ContainerStateWaiting.Reason,
// ContainerStateTerminated.Reason), as the kubelet reports them. Each value is the constant's
// name.
const (
	// ContainerCreating: waiting while the container is being created.
	ContainerCreating = api.ReasonContainerCreating
	// PodInitializing: waiting for the pod's init containers.
	PodInitializing = api.ReasonPodInitializing
	// PostStartHookError: the container's postStart hook failed.
	PostStartHookError = api.ReasonPostStartHookError
	// ErrImagePull: the container's image could not be pulled.
	ErrImagePull = api.ReasonErrImagePull
	// ImagePullBackOff: waiting for the back-off before the next pull.
	ImagePullBackOff = api.ReasonImagePullBackOff
	// CreateContainerError: the container could not be created.
	CreateContainerError = api.ReasonCreateContainerError
	// CreateContainerConfigError: the container's settings cannot be honoured with its image
	// (runAsNonRoot with an image that runs as root).
	CreateContainerConfigError = api.ReasonCreateContainerConfigError
	// RunContainerError: the container's process could not be started.
	RunContainerError = api.ReasonRunContainerError
	// CrashLoopBackOff: waiting for the back-off before a restart.
	CrashLoopBackOff = api.ReasonCrashLoopBackOff
	// Completed: the process exited with code 0.
	Completed = api.ReasonCompleted
	// Error: the process exited with a non-zero code.
	Error = api.ReasonError
	// OOMKilled: the process was killed for running out of memory.
	OOMKilled = api.ReasonOOMKilled
	// ContainerStatusUnknown: the container's process ended while nobody watched and its exit
	// status is unknown (exit code -1).
	ContainerStatusUnknown = api.ReasonContainerStatusUnknown
)
