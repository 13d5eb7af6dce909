package api

import (
	"fmt"
	"strings"
)

// NameError says that a name given to a call (a pod's or a container's) is not a valid
// Kubernetes name, so it cannot name anything podlife made. Such names are refused before they
// reach a file path or a containerd filter: "../../x" must not name a directory outside the state
// directory. errors.Is(err, ErrInvalidSpec) is true.
type NameError struct {
	Kind    string   // "pod" or "container"
	Name    string   // the name as given
	Reasons []string // why it is invalid, as the Kubernetes validation words it
}

// Error names the kind, the name and the reasons.
func (e *NameError) Error() string {
	return fmt.Sprintf("invalid %s name %q: %s", e.Kind, e.Name, strings.Join(e.Reasons, "; "))
}

// Is makes errors.Is(err, ErrInvalidSpec) true.
func (e *NameError) Is(target error) bool { return target == ErrInvalidSpec }
