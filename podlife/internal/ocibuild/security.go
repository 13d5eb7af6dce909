package ocibuild

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/podlife/podlife/podlife/internal/api"
)

// Security is what a container runs with once the pod's and the container's
// security contexts are merged (the container wins), as the kubelet's
// DetermineEffectiveSecurityContext does.
type Security struct {
	runAsUser, runAsGroup *int64
	runAsNonRoot          bool
	// groups are the supplementary groups (supplementalGroups, then fsGroup).
	groups       []uint32
	caps         *api.Capabilities
	readOnlyRoot bool
	privileged   bool
	noNewPrivs   bool
	// escalationUnset: allowPrivilegeEscalation is set in neither context (see SecurityOpts).
	escalationUnset bool
	seccomp         api.SeccompProfile
	sysctls         map[string]string
}

// SecurityOf merges the pod's security context with the container's.
func SecurityOf(s *api.PodSpec, c *api.ContainerSpec) Security {
	var e Security
	var seccomp *api.SeccompProfile
	var apl *bool
	if ps := s.SecurityContext; ps != nil {
		e.runAsUser, e.runAsGroup, seccomp = ps.RunAsUser, ps.RunAsGroup, ps.SeccompProfile
		e.runAsNonRoot = ps.RunAsNonRoot != nil && *ps.RunAsNonRoot
		for _, g := range ps.SupplementalGroups {
			e.groups = appendGroup(e.groups, g)
		}
		if ps.FSGroup != nil {
			e.groups = appendGroup(e.groups, *ps.FSGroup)
		}
		if len(ps.Sysctls) > 0 {
			e.sysctls = make(map[string]string, len(ps.Sysctls))
			for _, sc := range ps.Sysctls {
				e.sysctls[api.SysctlDots(sc.Name)] = sc.Value
			}
		}
	}
	if cs := c.SecurityContext; cs != nil {
		if cs.RunAsUser != nil {
			e.runAsUser = cs.RunAsUser
		}
		if cs.RunAsGroup != nil {
			e.runAsGroup = cs.RunAsGroup
		}
		if cs.RunAsNonRoot != nil {
			e.runAsNonRoot = *cs.RunAsNonRoot
		}
		if cs.SeccompProfile != nil {
			seccomp = cs.SeccompProfile
		}
		e.caps, e.readOnlyRoot, e.privileged, apl = cs.Capabilities, cs.ReadOnlyRootFilesystem, cs.Privileged, cs.AllowPrivilegeEscalation
	}
	e.seccomp = api.SeccompProfile{Type: api.SeccompRuntimeDefault}
	if seccomp != nil {
		e.seccomp = *seccomp
	}
	if e.privileged {
		e.seccomp = api.SeccompProfile{Type: api.SeccompUnconfined} // as containerd's CRI: no filter for a privileged container
	}
	if apl != nil {
		e.noNewPrivs = !*apl
	} else {
		e.noNewPrivs = !e.privileged && !api.CapabilityAdds(e.caps, "CAP_SYS_ADMIN")
		e.escalationUnset = true
	}
	return e
}

func appendGroup(gs []uint32, g int64) []uint32 {
	for _, x := range gs {
		if int64(x) == g {
			return gs
		}
	}
	return append(gs, uint32(g))
}

// VerifyRunAsNonRoot checks runAsNonRoot against the user the container will run as, with the
// kubelet's rules and words: the effective RunAsUser if set, else the image's user, which must
// be numeric and not 0 (an empty user is root).
func (e *Security) VerifyRunAsNonRoot(pod, namespace, container, imageUser string) error {
	if !e.runAsNonRoot {
		return nil
	}
	who := fmt.Sprintf("(pod: %q, container: %s)", pod+"_"+namespace, container)
	if e.runAsUser != nil {
		if *e.runAsUser == 0 {
			return fmt.Errorf("container's runAsUser breaks non-root policy %s", who)
		}
		return nil
	}
	user, _, _ := strings.Cut(imageUser, ":")
	if user == "" {
		return fmt.Errorf("container has runAsNonRoot and image will run as root %s", who)
	}
	uid, err := strconv.ParseInt(user, 10, 64)
	switch {
	case err != nil:
		return fmt.Errorf("container has runAsNonRoot and image has non-numeric user (%s), cannot verify user is non-root %s", user, who)
	case uid == 0:
		return fmt.Errorf("container has runAsNonRoot and image will run as root %s", who)
	}
	return nil
}
