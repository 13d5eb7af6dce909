package api

import "k8s.io/apimachinery/pkg/util/validation"

// CheckName returns a *NameError if name is not a DNS-1123 label, the rule PodSpec.Validate
// applies to pod and container names; kind ("pod" or "container") says which it names.
func CheckName(kind, name string) error {
	if name == "" {
		return &NameError{Kind: kind, Name: name, Reasons: []string{"must not be empty"}}
	}
	if msgs := validation.IsDNS1123Label(name); len(msgs) > 0 {
		return &NameError{Kind: kind, Name: name, Reasons: msgs}
	}
	return nil
}
