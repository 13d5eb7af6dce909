package api

import (
	"os"
	"time"

	"github.com/distribution/reference"
	"github.com/podlife/podlife/probe"
)

// defaultNamespace is the pod's Namespace when none is given (Kubernetes' default namespace).
const defaultNamespace = "default"

// defaultFileMode is a FilesVolume file's Mode when zero (the API's configMap defaultMode).
const defaultFileMode os.FileMode = 0o644

// WithDefaults returns the spec with every zero optional field set to its default, as
// admission applies them before validation (docs/spec-defaults.md lists them): namespace
// "default", hostname the pod's name, restartPolicy Always, the Sequential start policy, a
// 30 s termination grace period; per container an image pull policy from the image's tag,
// terminationMessagePath /dev/termination-log and policy File, port protocol TCP, dependency
// condition Started, the probes' kubelet timings (probe.Spec.WithDefaults); per volume an
// image volume's pull policy and files' mode 0644. The stop signal stays zero: it is the
// image's, known after the pull. Applying it twice gives what applying it once does. The
// spec's slices and the probes and volume sources it changes are copies: s is not modified.
func (s PodSpec) WithDefaults() PodSpec {
	if s.Namespace == "" {
		s.Namespace = defaultNamespace
	}
	if s.Hostname == "" {
		s.Hostname = s.Name
	}
	if s.RestartPolicy == "" {
		s.RestartPolicy = RestartAlways
	}
	if s.StartPolicy == nil {
		s.StartPolicy = Sequential()
	}
	if s.TerminationGracePeriod == nil {
		g := defaultGracePeriod
		s.TerminationGracePeriod = &g
	}
	s.Volumes = mapDefaults(s.Volumes, Volume.withDefaults)
	s.InitContainers = mapDefaults(s.InitContainers, ContainerSpec.withDefaults)
	s.Containers = mapDefaults(s.Containers, ContainerSpec.withDefaults)
	return s
}

// withDefaults is the container's defaulter (SetDefaults_Container).
func (c ContainerSpec) withDefaults() ContainerSpec {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = defaultPullPolicy(c.Image)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = DefaultTerminationMessagePath
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = TerminationMessageReadFile
	}
	c.Ports = mapDefaults(c.Ports, ContainerPort.withDefaults)
	c.DependsOn = mapDefaults(c.DependsOn, Dependency.withDefaults)
	c.StartupProbe = probeWithDefaults(c.StartupProbe)
	c.ReadinessProbe = probeWithDefaults(c.ReadinessProbe)
	c.LivenessProbe = probeWithDefaults(c.LivenessProbe)
	return c
}

// withDefaults is the ephemeral container's defaulter: its container's.
func (e EphemeralContainerSpec) withDefaults() EphemeralContainerSpec {
	e.ContainerSpec = e.ContainerSpec.withDefaults()
	return e
}

// withDefaults is the port's defaulter (SetDefaults_ContainerPort).
func (p ContainerPort) withDefaults() ContainerPort {
	if p.Protocol == "" {
		p.Protocol = ProtocolTCP
	}
	return p
}

// withDefaults is the dependency's defaulter: the condition Started.
func (d Dependency) withDefaults() Dependency {
	if d.Condition == "" {
		d.Condition = ContainerStarted
	}
	return d
}

// probeWithDefaults is a copy of the probe with the kubelet's timings (SetDefaults_Probe), nil
// for none.
func probeWithDefaults(p *probe.Spec) *probe.Spec {
	if p == nil {
		return nil
	}
	d := p.WithDefaults()
	return &d
}

// withDefaults is the volume's defaulter: an image volume's pull policy (as a container's
// image's), a files volume's file modes; the sources it changes are copies.
func (v Volume) withDefaults() Volume {
	if iv := v.Image; iv != nil && iv.PullPolicy == "" {
		c := *iv
		c.PullPolicy = defaultPullPolicy(c.Reference)
		v.Image = &c
	}
	if fv := v.Files; fv != nil {
		c := *fv
		c.Files = mapDefaults(c.Files, File.withDefaults)
		v.Files = &c
	}
	return v
}

// withDefaults is the file's defaulter: mode 0644.
func (f File) withDefaults() File {
	if f.Mode == 0 {
		f.Mode = defaultFileMode
	}
	return f
}

// defaultPullPolicy is the Kubernetes default pull policy of an image (SetDefaults_Container):
// Always for ":latest" or an untagged image, IfNotPresent otherwise (a digest, another tag, or
// a reference validation refuses).
func defaultPullPolicy(image string) PullPolicy {
	named, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return PullIfNotPresent
	}
	if _, digested := named.(reference.Digested); digested {
		return PullIfNotPresent
	}
	if tagged, ok := named.(reference.Tagged); ok && tagged.Tag() != "latest" {
		return PullIfNotPresent
	}
	return PullAlways
}

// mapDefaults is a copy of in with each element defaulted by f; nil stays nil.
func mapDefaults[T any](in []T, f func(T) T) []T {
	if in == nil {
		return nil
	}
	out := make([]T, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// defaultGracePeriod is the Kubernetes default terminationGracePeriodSeconds.
const defaultGracePeriod = 30 * time.Second
