package podsecurity

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// podSpecV1 is the Kubernetes form of s, as the checks read it.
func podSpecV1(s *Pod) *corev1.PodSpec {
	out := &corev1.PodSpec{HostNetwork: s.HostNetwork, HostPID: s.HostPID, HostIPC: s.HostIPC}
	if ps := s.SecurityContext; ps != nil {
		psc := &corev1.PodSecurityContext{RunAsUser: ps.RunAsUser, RunAsGroup: ps.RunAsGroup, RunAsNonRoot: ps.RunAsNonRoot,
			SupplementalGroups: ps.SupplementalGroups, FSGroup: ps.FSGroup, SeccompProfile: seccompV1(ps.SeccompProfile)}
		for _, sc := range ps.Sysctls {
			psc.Sysctls = append(psc.Sysctls, corev1.Sysctl{Name: sc.Name, Value: sc.Value})
		}
		out.SecurityContext = psc
	}
	for _, v := range s.Volumes {
		vv := corev1.Volume{Name: v.Name}
		switch {
		case v.EmptyDir != nil:
			vv.EmptyDir = &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMedium(v.EmptyDir.Medium)}
		case v.HostPath != nil:
			t := corev1.HostPathType(v.HostPath.Type)
			vv.HostPath = &corev1.HostPathVolumeSource{Path: v.HostPath.Path, Type: &t}
		case v.Projected:
			vv.Projected = &corev1.ProjectedVolumeSource{}
		case v.Image != nil:
			vv.Image = &corev1.ImageVolumeSource{Reference: v.Image.Reference, PullPolicy: corev1.PullPolicy(v.Image.PullPolicy)}
		}
		out.Volumes = append(out.Volumes, vv)
	}
	for i := range s.InitContainers {
		out.InitContainers = append(out.InitContainers, containerV1(&s.InitContainers[i]))
	}
	for i := range s.Containers {
		out.Containers = append(out.Containers, containerV1(&s.Containers[i]))
	}
	for i := range s.EphemeralContainers {
		out.EphemeralContainers = append(out.EphemeralContainers,
			corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon(containerV1(&s.EphemeralContainers[i]))})
	}
	return out
}

// containerV1 is the Kubernetes form of c.
func containerV1(c *Container) corev1.Container {
	out := corev1.Container{Name: c.Name, Image: c.Image,
		LivenessProbe: probeV1(c.LivenessProbe), ReadinessProbe: probeV1(c.ReadinessProbe), StartupProbe: probeV1(c.StartupProbe)}
	for _, p := range c.Ports {
		out.Ports = append(out.Ports, corev1.ContainerPort{Name: p.Name, ContainerPort: p.ContainerPort,
			HostPort: p.HostPort, HostIP: p.HostIP, Protocol: corev1.Protocol(p.Protocol)})
	}
	if h := c.PostStartHost; h != "" {
		out.Lifecycle = &corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Host: h}}}
	}
	if h := c.PreStopHost; h != "" {
		if out.Lifecycle == nil {
			out.Lifecycle = &corev1.Lifecycle{}
		}
		out.Lifecycle.PreStop = &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Host: h}}
	}
	if sc := c.SecurityContext; sc != nil {
		v := &corev1.SecurityContext{RunAsUser: sc.RunAsUser, RunAsGroup: sc.RunAsGroup, RunAsNonRoot: sc.RunAsNonRoot,
			ReadOnlyRootFilesystem: &sc.ReadOnlyRootFilesystem, AllowPrivilegeEscalation: sc.AllowPrivilegeEscalation,
			SeccompProfile: seccompV1(sc.SeccompProfile)}
		if sc.Privileged {
			v.Privileged = &sc.Privileged
		}
		if sc.ProcMount != "" {
			pm := corev1.ProcMountType(sc.ProcMount)
			v.ProcMount = &pm
		}
		if caps := sc.Capabilities; caps != nil {
			v.Capabilities = &corev1.Capabilities{}
			for _, a := range caps.Add {
				v.Capabilities.Add = append(v.Capabilities.Add, corev1.Capability(a))
			}
			for _, d := range caps.Drop {
				v.Capabilities.Drop = append(v.Capabilities.Drop, corev1.Capability(d))
			}
		}
		out.SecurityContext = v
	}
	return out
}

// probeV1 keeps what the checks read of a probe: that it exists, and the host it reaches
// instead of the pod's IP.
func probeV1(p *Probe) *corev1.Probe {
	if p == nil {
		return nil
	}
	out := &corev1.Probe{}
	if p.Host != "" {
		out.HTTPGet = &corev1.HTTPGetAction{Host: p.Host, Port: intstr.FromInt32(1)}
	}
	return out
}

// seccompV1 is the Kubernetes form of a seccomp profile.
func seccompV1(p *SeccompProfile) *corev1.SeccompProfile {
	if p == nil {
		return nil
	}
	out := &corev1.SeccompProfile{Type: corev1.SeccompProfileType(p.Type)}
	if p.LocalhostProfile != "" {
		out.LocalhostProfile = &p.LocalhostProfile
	}
	return out
}
