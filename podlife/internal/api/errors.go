package api

import (
	"errors"
	"fmt"
	"strings"

	"github.com/containerd/errdefs"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Error classes callers may branch on with errors.Is. The containerd classes are re-exported so
// that one check covers errors from podlife and from containerd.
var (
	// ErrNotFound: no such pod, container or image.
	ErrNotFound = errdefs.ErrNotFound
	// ErrAlreadyExists: a pod of that name exists already.
	ErrAlreadyExists = errdefs.ErrAlreadyExists
	// ErrInvalidSpec: the pod spec was rejected before anything was created (see *ValidationError),
	// or a name given to a call is not a valid pod or container name (a *NameError).
	ErrInvalidSpec = errdefs.ErrInvalidArgument
	// ErrNotSupported: the host or the containerd in use cannot do what was asked.
	ErrNotSupported = errdefs.ErrNotImplemented
	// ErrClosed: the Runtime was closed.
	ErrClosed = errors.New("podlife: runtime closed")
	// ErrPodStopping: the pod is stopping or stopped, so the call cannot proceed.
	ErrPodStopping = errors.New("podlife: pod is stopping")
	// ErrImageNeverPull: the image is missing and the pull policy is Never.
	ErrImageNeverPull = errors.New("image not present with pull policy of Never")
)

// ValidationError lists every problem found in a PodSpec, each with its field path.
type ValidationError struct {
	Pod  string
	Errs field.ErrorList
}

// Error joins the problems, one per line after the first.
func (e *ValidationError) Error() string {
	msgs := make([]string, len(e.Errs))
	for i, fe := range e.Errs {
		msgs[i] = fe.Error()
	}
	return fmt.Sprintf("invalid pod %q: %s", e.Pod, strings.Join(msgs, "; "))
}

// Is makes errors.Is(err, ErrInvalidSpec) true.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalidSpec }

// Step names the stage of a container's start that failed.
type Step string

// Start steps, in the order they happen.
const (
	StepSandbox   Step = "sandbox"
	StepNetwork   Step = "network"
	StepPull      Step = "pull"
	StepCreate    Step = "create"
	StepStart     Step = "start"
	StepPostStart Step = "postStart"
)

// StartError says which pod, container and step failed while a pod started. It wraps the cause.
type StartError struct {
	Pod       string
	Container string // empty for pod-level steps (sandbox, network)
	Step      Step
	Err       error
}

// Error describes the failure.
func (e *StartError) Error() string {
	if e.Container == "" {
		return fmt.Sprintf("pod %q: %s: %v", e.Pod, e.Step, e.Err)
	}
	return fmt.Sprintf("pod %q: container %q: %s: %v", e.Pod, e.Container, e.Step, e.Err)
}

// Unwrap returns the cause.
func (e *StartError) Unwrap() error { return e.Err }
