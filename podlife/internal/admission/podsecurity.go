package admission

import (
	"fmt"
	"slices"
	"strings"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/ocibuild"
	"github.com/podlife/podlife/podlife/internal/podsecurity"
)

// Level is a level of the Kubernetes Pod Security Standards, as the API server's
// PodSecurity admission enforces them on a namespace (pod-security.kubernetes.io/enforce).
// Package podlife/podsecurity re-exports it as Level.
type Level string

// Pod Security Standards levels.
const (
	// Privileged checks nothing: podlife's other gates (Config.AllowPrivileged,
	// AllowHostNamespaces, AllowedUnsafeSysctls) still apply.
	Privileged Level = "privileged"
	// Baseline refuses the known privilege escalations: privileged containers,
	// capabilities beyond the baseline set, the host's namespaces, hostPath volumes, host
	// ports, seccomp Unconfined, unsafe sysctls, /proc unmasked, probe and hook hosts.
	Baseline Level = "baseline"
	// Restricted is baseline plus the hardening best practices: runAsNonRoot,
	// allowPrivilegeEscalation false, capabilities drop ALL, a RuntimeDefault or Localhost
	// seccomp profile, and only emptyDir, configMap, secret, projected, downwardAPI and
	// image volumes.
	Restricted Level = "restricted"
)

// Policy is what a Runtime's Config allows (the fields of the same names).
type Policy struct {
	Level                Level
	AllowPrivileged      bool
	AllowHostNamespaces  bool
	AllowedCapabilities  []string
	AllowedUnsafeSysctls []string
	SeccompProfileRoot   string
}

// PodSecurity checks the pod (with ephemerals, ephemeral containers, if any) against
// the Policy's Pod Security level; an empty level applies podlife's default checks unless
// AllowPrivileged is set. Capabilities in AllowedCapabilities are exempt at every level.
func (c Policy) PodSecurity(s *api.PodSpec, ephemerals []api.ContainerSpec) error {
	var level podsecurity.Level
	switch c.Level {
	case Privileged:
		return nil
	case "":
		if c.AllowPrivileged {
			return nil
		}
		level = podsecurity.Defaults
	case Baseline:
		level = podsecurity.Baseline
	case Restricted:
		level = podsecurity.Restricted
	default:
		return fmt.Errorf("%w: unknown Pod Security level %q", api.ErrInvalidSpec, c.Level)
	}
	pod := podsecurity.FromSpec(s, ephemerals)
	exemptCapabilities(pod, c.AllowedCapabilities)
	v := podsecurity.Evaluate(level, pod)
	if v == nil {
		return nil
	}
	return &PodSecurityError{Pod: s.Name, Policy: v.Policy, Detail: v.Detail, Fields: v.Fields, Default: c.Level == ""}
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

// Validate checks the Config's PodSecurity and AllowedCapabilities.
func (c Policy) Validate() []error {
	var errs []error
	switch c.Level {
	case "", Privileged, Baseline, Restricted:
	default:
		errs = append(errs, fmt.Errorf("config.podSecurity: unsupported value %q: supported values: %q, %q, %q", c.Level,
			Privileged, Baseline, Restricted))
	}
	for i, n := range c.AllowedCapabilities {
		if cn := api.CapName(n); cn != api.CapAll && !slices.Contains(api.KnownCapabilities, cn) {
			errs = append(errs, fmt.Errorf("config.allowedCapabilities[%d]: %q is not a Linux capability", i, n))
		}
	}
	return errs
}

// PodSecurityError is a pod refused by the Pod Security Standards (Config.PodSecurity, or
// podlife's default checks). errors.Is(err, ErrInvalidSpec) is true for it. Package
// podlife/podsecurity re-exports it as Error.
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
func (e *PodSecurityError) Is(target error) bool { return target == api.ErrInvalidSpec }
