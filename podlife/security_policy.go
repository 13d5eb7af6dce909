package podlife

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/podlife/internal/admission"
)

// policy is what the Config allows, as package admission checks it.
func (c *Config) policy() admission.Policy {
	return admission.Policy{
		Level: c.PodSecurity, AllowPrivileged: c.AllowPrivileged, AllowHostNamespaces: c.AllowHostNamespaces,
		AllowedCapabilities: c.AllowedCapabilities, AllowedUnsafeSysctls: c.AllowedUnsafeSysctls,
		SeccompProfileRoot: c.SeccompProfileRoot,
	}
}

// admitSecurity refuses what the Config does not allow (see admission.Policy.Admit).
func (c *Config) admitSecurity(s *PodSpec) error { return c.policy().Admit(s) }

// admitPodSecurity checks the pod, with ephemerals, against the Config's Pod Security level
// (see admission.Policy.PodSecurity).
func (c *Config) admitPodSecurity(s *PodSpec, ephemerals []ContainerSpec) error {
	return c.policy().PodSecurity(s, ephemerals)
}

// validatePodSecurity checks the Config's PodSecurity and AllowedCapabilities.
func (c *Config) validatePodSecurity() []error { return c.policy().Validate() }

// admitContainerSecurity checks a container's security context (at path p) against what the
// Config allows (see admission.Policy.ContainerGates).
func (c *Config) admitContainerSecurity(p *field.Path, sc *SecurityContext) field.ErrorList {
	return c.policy().ContainerGates(p, sc)
}
