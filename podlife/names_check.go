package podlife

import "github.com/podlife/podlife/podlife/internal/api"

// checkName returns a *NameError if name is not a DNS-1123 label, the rule PodSpec.Validate
// applies to pod and container names (see api.CheckName).
func checkName(kind, name string) error { return api.CheckName(kind, name) }
