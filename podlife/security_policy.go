package podlife

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/podlife/internal/admission"
)

// PodSecurityLevel is a level of the Kubernetes Pod Security Standards, as the API server's
// PodSecurity admission enforces them on a namespace (pod-security.kubernetes.io/enforce).
type PodSecurityLevel = admission.Level

// Pod Security Standards levels (documented at [admission.Level]'s constants).
const (
	// PodSecurityPrivileged checks nothing: podlife's other gates (Config.AllowPrivileged,
	// AllowHostNamespaces, AllowedUnsafeSysctls) still apply.
	PodSecurityPrivileged = admission.Privileged
	// PodSecurityBaseline refuses the known privilege escalations: privileged containers,
	// capabilities beyond the baseline set, the host's namespaces, hostPath volumes, host
	// ports, seccomp Unconfined, unsafe sysctls, /proc unmasked, probe and hook hosts.
	PodSecurityBaseline = admission.Baseline
	// PodSecurityRestricted is baseline plus the hardening best practices: runAsNonRoot,
	// allowPrivilegeEscalation false, capabilities drop ALL, a RuntimeDefault or Localhost
	// seccomp profile, and only emptyDir, configMap, secret, projected, downwardAPI and
	// image volumes.
	PodSecurityRestricted = admission.Restricted
)

// PodSecurityError is a pod refused by the Pod Security Standards (Config.PodSecurity, or
// podlife's default checks). errors.Is(err, ErrInvalidSpec) is true for it. Its fields are
// documented at [admission.PodSecurityError].
type PodSecurityError = admission.PodSecurityError

// CheckPodSecurity evaluates spec against a Pod Security Standards level with the API
// server's own checks (k8s.io/pod-security-admission, at version "latest"): it returns nil,
// or a *PodSecurityError whose message is the API server's. An empty level is the default
// of a Runtime whose Config allows nothing (see Config.PodSecurity).
func CheckPodSecurity(level PodSecurityLevel, spec *PodSpec) error {
	return admission.Policy{Level: level}.PodSecurity(spec, nil)
}

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
