package api

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateSecurity checks the pod's and its containers' security contexts, as the API server
// validates them, plus what podlife does not support.
func validateSecurity(root *field.Path, s *PodSpec) field.ErrorList {
	var errs field.ErrorList
	if ps := s.SecurityContext; ps != nil {
		p := root.Child("securityContext")
		errs = append(errs, validateID(p.Child("runAsUser"), ps.RunAsUser)...)
		errs = append(errs, validateID(p.Child("runAsGroup"), ps.RunAsGroup)...)
		errs = append(errs, validateID(p.Child("fsGroup"), ps.FSGroup)...)
		for i, g := range ps.SupplementalGroups {
			errs = append(errs, validateID(p.Child("supplementalGroups").Index(i), &g)...)
		}
		errs = append(errs, validateSeccomp(p.Child("seccompProfile"), ps.SeccompProfile)...)
		errs = append(errs, validateSysctls(p.Child("sysctls"), ps.Sysctls, s.HostNetwork, s.HostIPC)...)
	}
	check := func(list *field.Path, cs []ContainerSpec) {
		for i := range cs {
			errs = append(errs, ValidateContainerSecurity(list.Index(i).Child("securityContext"), s, &cs[i])...)
		}
	}
	check(root.Child("initContainers"), s.InitContainers)
	check(root.Child("containers"), s.Containers)
	return errs
}

// ValidateContainerSecurity checks a container's security context and the merged result.
func ValidateContainerSecurity(p *field.Path, s *PodSpec, c *ContainerSpec) field.ErrorList {
	var errs field.ErrorList
	if cs := c.SecurityContext; cs != nil {
		errs = append(errs, validateID(p.Child("runAsUser"), cs.RunAsUser)...)
		errs = append(errs, validateID(p.Child("runAsGroup"), cs.RunAsGroup)...)
		errs = append(errs, validateSeccomp(p.Child("seccompProfile"), cs.SeccompProfile)...)
		if caps := cs.Capabilities; caps != nil {
			for _, l := range []struct {
				name  string
				names []string
			}{{"add", caps.Add}, {"drop", caps.Drop}} {
				for i, n := range l.names {
					if c := CapName(n); c != CapAll && !slices.Contains(KnownCapabilities, c) {
						errs = append(errs, field.NotSupported(p.Child("capabilities", l.name).Index(i), n, []string{"ALL", "a Linux capability, with or without CAP_ (NET_ADMIN, CAP_SYS_TIME)"}))
					}
				}
			}
		}
		switch cs.ProcMount {
		case "", ProcMountDefault:
		case "Unmasked":
			// Known to the API server (with user namespaces), not implemented by podlife.
			errs = append(errs, field.NotSupported(p.Child("procMount"), cs.ProcMount, []ProcMountType{ProcMountDefault}))
		default:
			// The API server's values (validateProcMountType).
			errs = append(errs, field.NotSupported(p.Child("procMount"), cs.ProcMount, []ProcMountType{ProcMountDefault, "Unmasked"}))
		}
		if a := cs.AllowPrivilegeEscalation; a != nil && !*a {
			if cs.Privileged {
				errs = append(errs, field.Invalid(p, "privileged", "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"))
			}
			if cs.Capabilities.adds("CAP_SYS_ADMIN") {
				errs = append(errs, field.Invalid(p, "CAP_SYS_ADMIN", "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"))
			}
		}
	}
	// runAsNonRoot with runAsUser 0 is not refused here: the API server accepts it, and the
	// kubelet reports it per container (CreateContainerConfigError, see ocibuild.Security.VerifyRunAsNonRoot).
	return errs
}

// validateID checks a UID or GID: 0 to 2147483647, as the API and runc want.
func validateID(p *field.Path, id *int64) field.ErrorList {
	if id != nil && (*id < 0 || *id > math.MaxInt32) {
		return field.ErrorList{field.Invalid(p, *id, "must be between 0 and 2147483647, inclusive")}
	}
	return nil
}

// validateSeccomp checks a seccomp profile: a known type, and a Localhost profile given as a
// relative path that stays in the profile root.
func validateSeccomp(p *field.Path, sp *SeccompProfile) field.ErrorList {
	if sp == nil {
		return nil
	}
	// The API server's rules (validateSeccompProfileField), with its wording.
	var errs field.ErrorList
	lp := p.Child("localhostProfile")
	switch sp.Type {
	case SeccompRuntimeDefault, SeccompUnconfined, SeccompLocalhost:
	case "":
		errs = append(errs, field.Required(p.Child("type"), "type is required when seccompProfile is set"))
	default:
		errs = append(errs, field.NotSupported(p.Child("type"), sp.Type, []SeccompProfileType{SeccompLocalhost, SeccompRuntimeDefault, SeccompUnconfined}))
	}
	switch {
	case sp.Type == SeccompLocalhost && sp.LocalhostProfile == "":
		errs = append(errs, field.Required(lp, "must be set when seccomp type is Localhost"))
	case sp.Type == SeccompLocalhost:
		pathErrs := validateLocalDescendingPath(lp, sp.LocalhostProfile)
		if len(pathErrs) == 0 && !filepath.IsLocal(sp.LocalhostProfile) {
			// podlife's own rule: the profile stays inside the profile root.
			pathErrs = append(pathErrs, field.Invalid(lp, sp.LocalhostProfile, "must be a relative path without '..', inside the seccomp profile root"))
		}
		errs = append(errs, pathErrs...)
	case sp.LocalhostProfile != "":
		// The API server prints the whole profile as the value.
		errs = append(errs, field.Invalid(lp, sp, "can only be set when seccomp type is Localhost"))
	}
	return errs
}

// sysctlName is the API's sysctl name format (dotted or slashed segments); its message
// quotes the regex, anchors included.
var sysctlName = regexp.MustCompile(`^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$`)

// validateSysctls checks sysctl names, that each is namespaced, and that none is set twice.
// Whether an unsafe one is allowed depends on the Runtime's Config (see admitSecurity).
func validateSysctls(p *field.Path, sysctls []Sysctl, hostNetwork, hostIPC bool) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, sc := range sysctls {
		np := p.Index(i).Child("name")
		name := SysctlDots(sc.Name)
		switch {
		case sc.Name == "":
			errs = append(errs, field.Required(np, ""))
			continue
		case len(sc.Name) > 253 || !sysctlName.MatchString(sc.Name):
			errs = append(errs, field.Invalid(np, sc.Name, "must have at most 253 characters and match regex "+sysctlName.String()))
			continue
		case seen[name]:
			errs = append(errs, field.Duplicate(np, sc.Name))
		case SysctlNamespace(name) == "":
			errs = append(errs, field.Forbidden(np, fmt.Sprintf("sysctl %q is not namespaced: it would change the host", sc.Name)))
		case hostNetwork && SysctlNamespace(name) == "net":
			// The API server's wording (ValidateHostSysctl).
			errs = append(errs, field.Invalid(np, sc.Name, "may not be specified when 'hostNetwork' is true"))
		case hostIPC && SysctlNamespace(name) == "ipc":
			errs = append(errs, field.Invalid(np, sc.Name, "may not be specified when 'hostIPC' is true"))
		}
		seen[name] = true
	}
	return errs
}
