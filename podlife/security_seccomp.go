package podlife

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/opencontainers/runtime-spec/specs-go"
	"github.com/podlife/podlife/podlife/internal/ocibuild"
)

// securityOpts turns the container's effective security context into OCI spec options (see
// ocibuild.SecurityOpts), with Localhost seccomp profiles read from the Config's root and
// no_new_privs by the Config's rule (AllowPrivilegeEscalationByDefault).
func (c *Container) securityOpts() ([]oci.SpecOpts, error) {
	cfg := &c.pod.rt.cfg
	return ocibuild.SecurityOpts(&c.pod.spec, c.spec, c.imageConfig.Config.User, cfg.loadSeccompProfile, cfg.AllowPrivilegeEscalationByDefault)
}

// loadSeccompProfile reads a Localhost seccomp profile under SeccompProfileRoot. It is opened
// through an os.Root, so neither ".." nor a symbolic link can take it out of the directory.
func (c *Config) loadSeccompProfile(name string) (*specs.LinuxSeccomp, error) {
	if c.SeccompProfileRoot == "" {
		return nil, fmt.Errorf("seccomp profile %q: Localhost profiles need Config.SeccompProfileRoot", name)
	}
	root, err := os.OpenRoot(c.SeccompProfileRoot)
	if err != nil {
		return nil, fmt.Errorf("seccomp profile root: %w", err)
	}
	defer root.Close()
	data, err := root.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("seccomp profile %q: %w", name, err)
	}
	var profile specs.LinuxSeccomp
	if err := json.Unmarshal(data, &profile); err != nil {
		return nil, fmt.Errorf("seccomp profile %q: decode: %w", name, err)
	}
	return &profile, nil
}
