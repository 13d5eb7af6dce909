package api

import (
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrManaged: the pod has a live manager (a process whose control socket answers, this
	// Runtime included) or another process is adopting it: it cannot be adopted.
	ErrManaged = errors.New("podlife: the pod has a live manager")
	// ErrSpecChanged: the spec given to Adopt is not the one the pod runs (see SpecChangedError).
	ErrSpecChanged = errors.New("podlife: the pod's spec changed")
)

// ManagedError refuses the adoption of a pod that a live process manages or adopts. It wraps
// ErrManaged.
type ManagedError struct {
	Pod string
	// PID is the managing process (0 if unknown).
	PID int
	// Adopting: another process holds the pod's adoption lock (it adopts or has adopted it).
	Adopting bool
}

func (e *ManagedError) Error() string {
	if e.Adopting {
		return fmt.Sprintf("pod %q: another process is adopting it or manages it after adopting it: %v", e.Pod, ErrManaged)
	}
	return fmt.Sprintf("pod %q: managed by pid %d: %v", e.Pod, e.PID, ErrManaged)
}

// Is makes errors.Is(err, ErrManaged) hold.
func (e *ManagedError) Is(target error) bool { return target == ErrManaged }

// SpecChangedError refuses an adoption whose spec differs from the one the pod runs. Fields
// names what differs ("restartPolicy", "containers[web].image", "containers" for the set or
// order of containers, ...). It wraps ErrSpecChanged. A changed pod is replaced (stop, remove,
// run), not adopted.
type SpecChangedError struct {
	Pod    string
	Fields []string
}

func (e *SpecChangedError) Error() string {
	return fmt.Sprintf("pod %q: the spec differs from the running pod's in %s: %v", e.Pod, strings.Join(e.Fields, ", "), ErrSpecChanged)
}

// Is makes errors.Is(err, ErrSpecChanged) hold.
func (e *SpecChangedError) Is(target error) bool { return target == ErrSpecChanged }
