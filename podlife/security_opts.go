package podlife

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/containerd/containerd/v2/contrib/seccomp"
	"github.com/containerd/containerd/v2/core/containers"
	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/opencontainers/runtime-spec/specs-go"
)

// securityOpts turns the container's effective security context into OCI spec options, as
// containerd's CRI plugin does for the kubelet's settings. They come after the image's config
// (which set the image's user) and after resources and mounts; the seccomp profile comes last,
// as the default profile depends on the capabilities.
func (c *Container) securityOpts() ([]oci.SpecOpts, error) {
	e := securityOf(&c.pod.spec, c.spec)
	var opts []oci.SpecOpts
	if e.runAsUser != nil || e.runAsGroup != nil {
		// The kubelet runs as RunAsUser, else the image's user (its name, or its UID with
		// the image's group dropped), else root; RunAsGroup, else the user's group.
		user, _, _ := strings.Cut(c.imageConfig.Config.User, ":")
		if user == "" {
			user = "0"
		}
		if e.runAsUser != nil {
			user = strconv.FormatInt(*e.runAsUser, 10)
		}
		userGroup := user
		if e.runAsGroup != nil {
			userGroup += ":" + strconv.FormatInt(*e.runAsGroup, 10)
		}
		opts = append(opts, oci.WithUser(userGroup), oci.WithAdditionalGIDs(user))
	}
	if len(e.groups) > 0 {
		opts = append(opts, withExtraGroups(e.groups))
	}
	switch {
	case e.privileged:
		opts = append(opts, oci.WithPrivileged, oci.WithHostDevices, oci.WithAllDevicesAllowed)
	case e.caps != nil:
		add, addAll := capNames(e.caps.Add)
		drop, dropAll := capNames(e.caps.Drop)
		if addAll {
			opts = append(opts, oci.WithAllCurrentCapabilities)
		}
		if dropAll {
			opts = append(opts, oci.WithCapabilities(nil))
		}
		opts = append(opts, oci.WithAddedCapabilities(add), oci.WithDroppedCapabilities(drop))
	}
	if e.readOnlyRoot {
		opts = append(opts, oci.WithRootFSReadonly())
	}
	if e.noNewPrivs {
		opts = append(opts, oci.WithNoNewPrivileges)
	} else {
		opts = append(opts, oci.WithNewPrivileges)
	}
	if len(e.sysctls) > 0 {
		opts = append(opts, withSysctls(e.sysctls))
	}
	switch e.seccomp.Type {
	case SeccompUnconfined:
		opts = append(opts, oci.WithSeccompUnconfined)
	case SeccompLocalhost:
		profile, err := c.pod.rt.cfg.loadSeccompProfile(e.seccomp.LocalhostProfile)
		if err != nil {
			return nil, err
		}
		opts = append(opts, func(_ context.Context, _ oci.Client, _ *containers.Container, s *specs.Spec) error {
			if s.Linux == nil {
				s.Linux = &specs.Linux{}
			}
			s.Linux.Seccomp = profile
			return nil
		})
	default:
		opts = append(opts, seccomp.WithDefaultProfile())
	}
	return opts, nil
}

// withExtraGroups adds supplementary groups to the process's (after the image's).
func withExtraGroups(gids []uint32) oci.SpecOpts {
	return func(_ context.Context, _ oci.Client, _ *containers.Container, s *specs.Spec) error {
		if s.Process == nil {
			s.Process = &specs.Process{}
		}
		for _, g := range gids {
			if !containsGID(s.Process.User.AdditionalGids, g) {
				s.Process.User.AdditionalGids = append(s.Process.User.AdditionalGids, g)
			}
		}
		return nil
	}
}

func containsGID(gs []uint32, g uint32) bool {
	for _, x := range gs {
		if x == g {
			return true
		}
	}
	return false
}

// withSysctls sets the pod's sysctls; runc writes them in the container's namespaces.
func withSysctls(sysctls map[string]string) oci.SpecOpts {
	return func(_ context.Context, _ oci.Client, _ *containers.Container, s *specs.Spec) error {
		if s.Linux == nil {
			s.Linux = &specs.Linux{}
		}
		if s.Linux.Sysctl == nil {
			s.Linux.Sysctl = map[string]string{}
		}
		for k, v := range sysctls {
			s.Linux.Sysctl[k] = v
		}
		return nil
	}
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
