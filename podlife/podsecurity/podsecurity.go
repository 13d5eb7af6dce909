package podsecurity

import (
	"github.com/podlife/podlife/podlife/internal/admission"
	"github.com/podlife/podlife/podlife/internal/api"
)

// Level is a level of the Kubernetes Pod Security Standards, as the API server's PodSecurity
// admission enforces them on a namespace (pod-security.kubernetes.io/enforce). The empty level
// is podlife's default (see Config.PodSecurity).
type Level = admission.Level

// Pod Security Standards levels.
const (
	// Privileged checks nothing: podlife's other gates (Config.AllowPrivileged,
	// AllowHostNamespaces, AllowedUnsafeSysctls) still apply.
	Privileged = admission.Privileged
	// Baseline refuses the known privilege escalations: privileged containers, capabilities
	// beyond the baseline set, the host's namespaces, hostPath volumes, host ports, seccomp
	// Unconfined, unsafe sysctls, /proc unmasked, probe and hook hosts.
	Baseline = admission.Baseline
	// Restricted is baseline plus the hardening best practices: runAsNonRoot,
	// allowPrivilegeEscalation false, capabilities drop ALL, a RuntimeDefault or Localhost
	// seccomp profile, and only emptyDir, configMap, secret, projected, downwardAPI and image
	// volumes.
	Restricted = admission.Restricted
)

// Error is a pod refused by the Pod Security Standards (Config.PodSecurity, or podlife's
// default checks): the pod, the policy, the API server's detail and the offending fields.
// errors.Is(err, podlife.ErrInvalidSpec) is true for it. Its fields are documented at
// [admission.PodSecurityError].
type Error = admission.PodSecurityError

// Check evaluates spec against a Pod Security Standards level with the API server's own checks
// (k8s.io/pod-security-admission, at version "latest"): it returns nil, or an *Error whose
// message is the API server's. An empty level is the default of a Runtime whose Config allows
// nothing (see Config.PodSecurity).
func Check(level Level, spec *api.PodSpec) error {
	return admission.Policy{Level: level}.PodSecurity(spec, nil)
}
