package podlife

import "github.com/podlife/podlife/podlife/internal/api"

var (
	// ErrManaged: the pod has a live manager (a process whose control socket answers, this Runtime
	// included) or another process is adopting it: it cannot be adopted.
	ErrManaged = api.ErrManaged
	// ErrSpecChanged: the spec given to Adopt is not the one the pod runs (see SpecChangedError).
	ErrSpecChanged = api.ErrSpecChanged
)

// ManagedError refuses the adoption of a pod that a live process manages or adopts. Its fields are
// documented at [api.ManagedError].
type ManagedError = api.ManagedError

// SpecChangedError refuses an adoption whose spec differs from the one the pod runs. Its fields are
// documented at [api.SpecChangedError].
type SpecChangedError = api.SpecChangedError

// Error classes callers may branch on with errors.Is.
var (
	// ErrNotFound: no such pod, container or image.
	ErrNotFound = api.ErrNotFound
	// ErrAlreadyExists: a pod of that name exists already.
	ErrAlreadyExists = api.ErrAlreadyExists
	// ErrInvalidSpec: the pod spec was rejected before anything was created (see *ValidationError), or
	// a name given to a call is not a valid pod or container name.
	ErrInvalidSpec = api.ErrInvalidSpec
	// ErrNotSupported: the host or the containerd in use cannot do what was asked.
	ErrNotSupported = api.ErrNotSupported
	// ErrClosed: the Runtime was closed.
	ErrClosed = api.ErrClosed
	// ErrPodStopping: the pod is stopping or stopped, so the call cannot proceed.
	ErrPodStopping = api.ErrPodStopping
	// ErrImageNeverPull: the image is missing and the pull policy is Never.
	ErrImageNeverPull = api.ErrImageNeverPull
	// ErrCreateContainerConfig: a container's settings contradict its image or each other, so it
	// cannot be created (runAsNonRoot with a runAsUser of 0, or with an image whose user is root
	// or a name): the kubelet's CreateContainerConfigError.
	ErrCreateContainerConfig = api.ErrCreateContainerConfig
)

// ValidationError lists every problem found in a PodSpec, each with its field path. Its fields are
// documented at [api.ValidationError].
type ValidationError = api.ValidationError

// Step names the stage of a container's start that failed.
type Step = api.Step

// Start steps, in the order they happen.
const (
	StepSandbox   = api.StepSandbox
	StepNetwork   = api.StepNetwork
	StepPull      = api.StepPull
	StepCreate    = api.StepCreate
	StepStart     = api.StepStart
	StepPostStart = api.StepPostStart
)

// StartError says which pod, container and step failed while a pod started. Its fields are
// documented at [api.StartError].
type StartError = api.StartError
