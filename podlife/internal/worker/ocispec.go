package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"path/filepath"
	"time"

	"github.com/containerd/containerd/v2/pkg/oci"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/podlife/internal/worker/containerspec"
	"github.com/podlife/podlife/podlife/internal/worker/podsandbox"
	"github.com/podlife/podlife/podlife/internal/worker/volmount"
)

// specInput is what the container's OCI spec options are built from (see containerspec.Opts),
// but its volume mounts (see creating.Make).
func (c *Container) specInput() containerspec.Input {
	p := c.pod
	in := containerspec.Input{
		Pod: &p.spec, Container: c.spec, Entrypoint: c.imageConfig.Config.Entrypoint, User: c.imageConfig.Config.User,
		TTY: c.tty, Resources: c.resources(), Sandbox: p.specSandbox(),
		AllowPrivilegeEscalationByDefault: p.host.Cfg.AllowPrivilegeEscalationByDefault,
		FieldValue: func(f PodField) (string, error) {
			return containerspec.FieldValue(containerspec.Pod{UID: p.uid, HostNetwork: p.spec.HostNetwork, HostIPs: p.host.HostIPs, IP: p.sandbox.IP}, f)
		},
		LoadSeccompProfile: p.host.LoadSeccompProfile,
	}
	if c.ephemeral {
		in.EphemeralPID = c.ephemeralPIDOpts
	}
	if g := p.shimGroup(); g != "" {
		in.Annotations = map[string]string{podsandbox.AnnotationShimGroup: g}
	}
	return in
}

// specSandbox is what a container joins of the pod's sandbox.
func (p *Worker) specSandbox() containerspec.Sandbox {
	s := p.sandbox
	return containerspec.Sandbox{Hostname: s.Hostname(), NSPaths: s.NSPaths(), PIDNS: s.PIDNSPath(), EtcDir: filepath.Join(s.Dir(), "etc")}
}

// sharedNamespaceOpts are the namespaces the pause and every container join (see
// containerspec.SharedNamespaceOpts).
func (p *Worker) sharedNamespaceOpts() []oci.SpecOpts {
	return containerspec.SharedNamespaceOpts(&p.spec, p.specSandbox())
}

// volumeReadOnly tells whether a volume is always mounted read-only (files and image volumes).
func (p *Worker) volumeReadOnly(name string) bool { return volmount.ReadOnly(&p.spec, name) }

// applyFSGroup gives a volume podlife made to the pod's fsGroup (see volmount.ApplyFSGroup).
func applyFSGroup(s *PodSpec, dir string, readOnly bool) error {
	return volmount.ApplyFSGroup(s, dir, readOnly)
}

// GracePeriod is the pod's termination grace period (see containerspec.GracePeriod).
func GracePeriod(s *PodSpec) time.Duration { return containerspec.GracePeriod(s) }

// PortMappings lists the host ports the pod publishes (see containerspec.PortMappings).
func PortMappings(s *PodSpec) []cni.PortMapping { return containerspec.PortMappings(s) }
