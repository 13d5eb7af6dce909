package podlife

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
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

// checkName returns a *NameError if name is not a DNS-1123 label, the rule PodSpec.Validate
// applies to pod and container names.
func checkName(kind, name string) error {
	if name == "" {
		return &NameError{Kind: kind, Name: name, Reasons: []string{"must not be empty"}}
	}
	if msgs := validation.IsDNS1123Label(name); len(msgs) > 0 {
		return &NameError{Kind: kind, Name: name, Reasons: msgs}
	}
	return nil
}
