package kube

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/podlife/podlife/podlife"
)

// podSecurity converts the pod's securityContext; podlife's validation and the Runtime's
// Config judge the values.
func podSecurity(sc *corev1.PodSecurityContext) *podlife.PodSecurityContext {
	if sc == nil {
		return nil
	}
	out := &podlife.PodSecurityContext{
		RunAsUser: sc.RunAsUser, RunAsGroup: sc.RunAsGroup, RunAsNonRoot: sc.RunAsNonRoot,
		SupplementalGroups: sc.SupplementalGroups, FSGroup: sc.FSGroup,
		SeccompProfile: seccompProfile(sc.SeccompProfile),
	}
	for _, s := range sc.Sysctls {
		out.Sysctls = append(out.Sysctls, podlife.Sysctl{Name: s.Name, Value: s.Value})
	}
	return out
}

// containerSecurity converts a container's securityContext.
func containerSecurity(sc *corev1.SecurityContext) *podlife.SecurityContext {
	if sc == nil {
		return nil
	}
	out := &podlife.SecurityContext{
		RunAsUser: sc.RunAsUser, RunAsGroup: sc.RunAsGroup, RunAsNonRoot: sc.RunAsNonRoot,
		AllowPrivilegeEscalation: sc.AllowPrivilegeEscalation,
		SeccompProfile:           seccompProfile(sc.SeccompProfile),
	}
	if sc.ReadOnlyRootFilesystem != nil {
		out.ReadOnlyRootFilesystem = *sc.ReadOnlyRootFilesystem
	}
	if sc.Privileged != nil {
		out.Privileged = *sc.Privileged
	}
	if sc.ProcMount != nil {
		out.ProcMount = podlife.ProcMountType(*sc.ProcMount)
	}
	if c := sc.Capabilities; c != nil {
		out.Capabilities = &podlife.Capabilities{Add: capStrings(c.Add), Drop: capStrings(c.Drop)}
	}
	return out
}

func seccompProfile(p *corev1.SeccompProfile) *podlife.SeccompProfile {
	if p == nil {
		return nil
	}
	out := &podlife.SeccompProfile{Type: podlife.SeccompProfileType(p.Type)}
	if p.LocalhostProfile != nil {
		out.LocalhostProfile = *p.LocalhostProfile
	}
	return out
}

func capStrings(cs []corev1.Capability) []string {
	var out []string
	for _, c := range cs {
		out = append(out, string(c))
	}
	return out
}
