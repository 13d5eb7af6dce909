package podlife

import (
	"fmt"
	"slices"
	"strings"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/ocibuild"
	"github.com/podlife/podlife/podlife/internal/podsecurity"
)

// PodSecurityLevel is a level of the Kubernetes Pod Security Standards, as the API server's
// PodSecurity admission enforces them on a namespace (pod-security.kubernetes.io/enforce).
type PodSecurityLevel string

// Pod Security Standards levels.
const (
	// PodSecurityPrivileged checks nothing: podlife's other gates (Config.AllowPrivileged,
	// AllowHostNamespaces, AllowedUnsafeSysctls) still apply.
	PodSecurityPrivileged PodSecurityLevel = "privileged"
	// PodSecurityBaseline refuses the known privilege escalations: privileged containers,
	// capabilities beyond the baseline set, the host's namespaces, hostPath volumes, host
	// ports, seccomp Unconfined, unsafe sysctls, /proc unmasked, probe and hook hosts.
	PodSecurityBaseline PodSecurityLevel = "baseline"
	// PodSecurityRestricted is baseline plus the hardening best practices: runAsNonRoot,
	// allowPrivilegeEscalation false, capabilities drop ALL, a RuntimeDefault or Localhost
	// seccomp profile, and only emptyDir, configMap, secret, projected, downwardAPI and
	// image volumes.
	PodSecurityRestricted PodSecurityLevel = "restricted"
)

// CheckPodSecurity evaluates spec against a Pod Security Standards level with the API
// server's own checks (k8s.io/pod-security-admission, at version "latest"): it returns nil,
// or a *PodSecurityError whose message is the API server's. An empty level is the default
// of a Runtime whose Config allows nothing (see Config.PodSecurity).
func CheckPodSecurity(level PodSecurityLevel, spec *PodSpec) error {
	return (&Config{PodSecurity: level}).admitPodSecurity(spec, nil)
}

// admitPodSecurity checks the pod (with ephemerals, ephemeral containers, if any) against
// the Config's Pod Security level; an empty level applies podlife's default checks unless
// AllowPrivileged is set. Capabilities in AllowedCapabilities are exempt at every level.
func (c *Config) admitPodSecurity(s *PodSpec, ephemerals []ContainerSpec) error {
	var level podsecurity.Level
	switch c.PodSecurity {
	case PodSecurityPrivileged:
		return nil
	case "":
		if c.AllowPrivileged {
			return nil
		}
		level = podsecurity.Defaults
	case PodSecurityBaseline:
		level = podsecurity.Baseline
	case PodSecurityRestricted:
		level = podsecurity.Restricted
	default:
		return fmt.Errorf("%w: unknown Pod Security level %q", ErrInvalidSpec, c.PodSecurity)
	}
	pod := podsecurity.FromSpec(s, ephemerals)
	exemptCapabilities(pod, c.AllowedCapabilities)
	v := podsecurity.Evaluate(level, pod)
	if v == nil {
		return nil
	}
	return &PodSecurityError{Pod: s.Name, Policy: v.Policy, Detail: v.Detail, Fields: v.Fields, Default: c.PodSecurity == ""}
}

// exemptCapabilities removes the allowed capabilities (compared as podlife does: any case,
// with or without CAP_; "ALL" allows every one) from the containers' capabilities.add.
func exemptCapabilities(s *podsecurity.Pod, allowed []string) {
	if len(allowed) == 0 {
		return
	}
	names, all := ocibuild.CapNames(allowed)
	s.ExemptCapabilities(names, all)
}

// validatePodSecurity checks the Config's PodSecurity and AllowedCapabilities.
func (c *Config) validatePodSecurity() []error {
	var errs []error
	switch c.PodSecurity {
	case "", PodSecurityPrivileged, PodSecurityBaseline, PodSecurityRestricted:
	default:
		errs = append(errs, fmt.Errorf("config.podSecurity: unsupported value %q: supported values: %q, %q, %q", c.PodSecurity,
			PodSecurityPrivileged, PodSecurityBaseline, PodSecurityRestricted))
	}
	for i, n := range c.AllowedCapabilities {
		if cn := api.CapName(n); cn != api.CapAll && !slices.Contains(api.KnownCapabilities, cn) {
			errs = append(errs, fmt.Errorf("config.allowedCapabilities[%d]: %q is not a Linux capability", i, n))
		}
	}
	return errs
}

// PodSecurityError is a pod refused by the Pod Security Standards (Config.PodSecurity, or
// podlife's default checks). errors.Is(err, ErrInvalidSpec) is true for it.
type PodSecurityError struct {
	// Pod is the pod's name.
	Pod string
	// Policy is the level and version checked, as the API server names them: "baseline:latest".
	Policy string
	// Detail is what the API server says after `violates PodSecurity "<policy>": `, for
	// example `non-default capabilities (container "c" must not include "SYS_ADMIN" in
	// securityContext.capabilities.add)`.
	Detail string
	// Fields are the paths of the fields that violate the policy, such as
	// "spec.containers[0].securityContext.capabilities.add".
	Fields []string
	// Default is true when the Config set no PodSecurity level: podlife's default checks
	// (capabilities beyond the baseline set, seccomp Unconfined) refused the pod.
	Default bool
}

// Error is the API server's message, with the pod's name, the fields and, for the default
// checks, how to allow them.
func (e *PodSecurityError) Error() string {
	msg := fmt.Sprintf("pod %q: violates PodSecurity %q: %s; fields: %s", e.Pod, e.Policy, e.Detail, strings.Join(e.Fields, ", "))
	if e.Default {
		msg += "; allow with Config.AllowedCapabilities, Config.AllowPrivileged or Config.PodSecurity \"privileged\""
	}
	return msg
}

// Is makes errors.Is(err, ErrInvalidSpec) true: the pod was refused before anything ran.
func (e *PodSecurityError) Is(target error) bool { return target == ErrInvalidSpec }
