package admission

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/podlife/podlife/podlife/internal/api"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Admit refuses what the Runtime's configuration does not allow: privileged
// containers, the host's PID and IPC namespaces, unsafe sysctls and Localhost seccomp profiles
// without a profile root (a *ValidationError), and what its Pod Security level does not (a
// *PodSecurityError); both, joined, if both refuse the pod.
func (c Policy) Admit(s *api.PodSpec) error {
	return errors.Join(c.Gates(s), c.PodSecurity(s, nil))
}

// Gates checks the pod against AllowPrivileged, AllowHostNamespaces,
// AllowedUnsafeSysctls and SeccompProfileRoot. The error is a *ValidationError.
func (c Policy) Gates(s *api.PodSpec) error {
	var errs field.ErrorList
	root := field.NewPath("spec")
	if s.HostPID && !c.AllowHostNamespaces {
		errs = append(errs, field.Forbidden(root.Child("hostPID"), "the host's PID namespace is not allowed: set Config.AllowHostNamespaces"))
	}
	if s.HostIPC && !c.AllowHostNamespaces {
		errs = append(errs, field.Forbidden(root.Child("hostIPC"), "the host's IPC namespace is not allowed: set Config.AllowHostNamespaces"))
	}
	if ps := s.SecurityContext; ps != nil {
		for i, sc := range ps.Sysctls {
			name := api.SysctlDots(sc.Name)
			if !safeSysctls[name] && !allowedSysctl(name, c.AllowedUnsafeSysctls) {
				errs = append(errs, field.Forbidden(root.Child("securityContext", "sysctls").Index(i).Child("name"),
					fmt.Sprintf("unsafe sysctl %q is not allowed: the safe set is %s; allow others with Config.AllowedUnsafeSysctls", sc.Name, strings.Join(sortedKeys(safeSysctls), ", "))))
			}
		}
		if c.SeccompProfileRoot == "" && ps.SeccompProfile != nil && ps.SeccompProfile.Type == api.SeccompLocalhost {
			errs = append(errs, field.Forbidden(root.Child("securityContext", "seccompProfile"), "Localhost profiles need Config.SeccompProfileRoot"))
		}
	}
	check := func(list *field.Path, cs []api.ContainerSpec) {
		for i := range cs {
			errs = append(errs, c.ContainerGates(list.Index(i).Child("securityContext"), cs[i].SecurityContext)...)
		}
	}
	check(root.Child("initContainers"), s.InitContainers)
	check(root.Child("containers"), s.Containers)
	if len(errs) == 0 {
		return nil
	}
	return &api.ValidationError{Pod: s.Name, Errs: errs}
}

// ContainerGates checks a container's security context (at path p) against what the
// Policy allows.
func (c Policy) ContainerGates(p *field.Path, sc *api.SecurityContext) field.ErrorList {
	var errs field.ErrorList
	if sc == nil {
		return nil
	}
	if sc.Privileged && !c.AllowPrivileged {
		errs = append(errs, field.Forbidden(p.Child("privileged"), "privileged containers are not allowed: set Config.AllowPrivileged"))
	}
	if c.SeccompProfileRoot == "" && sc.SeccompProfile != nil && sc.SeccompProfile.Type == api.SeccompLocalhost {
		errs = append(errs, field.Forbidden(p.Child("seccompProfile"), "Localhost profiles need Config.SeccompProfileRoot"))
	}
	return errs
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
