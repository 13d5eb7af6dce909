package worker

import (
	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/podlife/podlife/podlife/internal/ocibuild"
)

// securityOpts turns the container's effective security context into OCI spec options (see
// ocibuild.SecurityOpts), with Localhost seccomp profiles read from the Config's root and
// no_new_privs by the Config's rule (AllowPrivilegeEscalationByDefault).
func (c *Container) securityOpts() ([]oci.SpecOpts, error) {
	h := c.pod.rt
	return ocibuild.SecurityOpts(&c.pod.spec, c.spec, c.imageConfig.Config.User, h.LoadSeccompProfile, h.Cfg.AllowPrivilegeEscalationByDefault)
}
