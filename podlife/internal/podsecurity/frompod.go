package podsecurity

import (
	"slices"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/probe"
)

// FromSpec is what the Pod Security checks read of s (the host namespaces, volumes' kinds,
// security contexts, host ports, probe and hook hosts), with ephemerals as its ephemeral
// containers. Files volumes (what configMap, secret, downwardAPI and projected volumes become)
// are projected volumes: the checks treat those four alike. Its slices are its own: changing
// them leaves s as it is.
func FromSpec(s *api.PodSpec, ephemerals []api.ContainerSpec) *Pod {
	out := &Pod{HostNetwork: s.HostNetwork, HostPID: s.HostPID, HostIPC: s.HostIPC}
	if ps := s.SecurityContext; ps != nil {
		psc := &PodSecurityContext{RunAsUser: ps.RunAsUser, RunAsGroup: ps.RunAsGroup, RunAsNonRoot: ps.RunAsNonRoot,
			SupplementalGroups: ps.SupplementalGroups, FSGroup: ps.FSGroup, SeccompProfile: securitySeccomp(ps.SeccompProfile)}
		for _, sc := range ps.Sysctls {
			psc.Sysctls = append(psc.Sysctls, Sysctl{Name: sc.Name, Value: sc.Value})
		}
		out.SecurityContext = psc
	}
	for _, v := range s.Volumes {
		vv := Volume{Name: v.Name}
		switch {
		case v.EmptyDir != nil:
			vv.EmptyDir = &EmptyDir{Medium: string(v.EmptyDir.Medium)}
		case v.HostPath != nil:
			vv.HostPath = &HostPath{Path: v.HostPath.Path, Type: string(v.HostPath.Type)}
		case v.Files != nil:
			vv.Projected = true
		case v.Image != nil:
			vv.Image = &Image{Reference: v.Image.Reference, PullPolicy: string(v.Image.PullPolicy)}
		}
		out.Volumes = append(out.Volumes, vv)
	}
	for i := range s.InitContainers {
		out.InitContainers = append(out.InitContainers, securityContainer(&s.InitContainers[i]))
	}
	for i := range s.Containers {
		out.Containers = append(out.Containers, securityContainer(&s.Containers[i]))
	}
	for i := range ephemerals {
		out.EphemeralContainers = append(out.EphemeralContainers, securityContainer(&ephemerals[i]))
	}
	return out
}

// securityContainer is what the Pod Security checks read of c.
func securityContainer(c *api.ContainerSpec) Container {
	out := Container{Name: c.Name, Image: c.Image,
		LivenessProbe: securityProbe(c.LivenessProbe), ReadinessProbe: securityProbe(c.ReadinessProbe), StartupProbe: securityProbe(c.StartupProbe)}
	for _, p := range c.Ports {
		out.Ports = append(out.Ports, Port{Name: p.Name, ContainerPort: int32(p.ContainerPort),
			HostPort: int32(p.HostPort), HostIP: p.HostIP, Protocol: string(p.Protocol)})
	}
	out.PostStartHost, _ = targetHost(c.PostStart)
	out.PreStopHost, _ = targetHost(c.PreStop)
	if sc := c.SecurityContext; sc != nil {
		v := &SecurityContext{RunAsUser: sc.RunAsUser, RunAsGroup: sc.RunAsGroup, RunAsNonRoot: sc.RunAsNonRoot,
			ReadOnlyRootFilesystem: sc.ReadOnlyRootFilesystem, AllowPrivilegeEscalation: sc.AllowPrivilegeEscalation,
			Privileged: sc.Privileged, ProcMount: string(sc.ProcMount), SeccompProfile: securitySeccomp(sc.SeccompProfile)}
		if caps := sc.Capabilities; caps != nil {
			v.Capabilities = &Capabilities{Add: append([]string(nil), caps.Add...), Drop: append([]string(nil), caps.Drop...)}
		}
		out.SecurityContext = v
	}
	return out
}

// securityProbe keeps what the checks read of a probe: that it exists, and the host it reaches
// instead of the pod's IP (an httpGet or tcpSocket host).
func securityProbe(p *probe.Spec) *Probe {
	if p == nil {
		return nil
	}
	h, _ := targetHost(p.Prober)
	return &Probe{Host: h}
}

// targetHost is the host a prober or hook handler reaches instead of the pod's IP (probe and
// hook's httpGet and tcpSocket have it; Go functions have none).
func targetHost(x any) (string, bool) {
	if t, ok := x.(interface{ TargetHost() string }); ok && t.TargetHost() != "" {
		return t.TargetHost(), true
	}
	return "", false
}

// securitySeccomp is what the checks read of a seccomp profile.
func securitySeccomp(p *api.SeccompProfile) *SeccompProfile {
	if p == nil {
		return nil
	}
	return &SeccompProfile{Type: string(p.Type), LocalhostProfile: p.LocalhostProfile}
}

// ExemptCapabilities removes the allowed capabilities from the containers' capabilities.add:
// names are the allowed ones in the form api.CapName gives, all allows every one; a
// capability is compared as podlife does (any case, with or without CAP_).
func (p *Pod) ExemptCapabilities(names []string, all bool) {
	exempt := func(sc *SecurityContext) {
		if sc == nil || sc.Capabilities == nil {
			return
		}
		sc.Capabilities.Add = slices.DeleteFunc(sc.Capabilities.Add, func(c string) bool {
			return all || slices.Contains(names, api.CapName(c))
		})
	}
	for _, cs := range [][]Container{p.InitContainers, p.Containers, p.EphemeralContainers} {
		for i := range cs {
			exempt(cs[i].SecurityContext)
		}
	}
}
