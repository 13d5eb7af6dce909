package ocibuild

import (
	"context"
	"strconv"
	"strings"

	"github.com/containerd/containerd/v2/contrib/seccomp"
	"github.com/containerd/containerd/v2/core/containers"
	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/opencontainers/runtime-spec/specs-go"
	"github.com/podlife/podlife/podlife/internal/api"
)

// SecurityOpts turns a container's effective security context into OCI spec options, as
// containerd's CRI plugin does for the kubelet's settings; imageUser is the image's configured
// user, loadProfile reads a Localhost seccomp profile. They come after the image's config
// (which set the image's user) and after resources and mounts; the seccomp profile comes last,
// as the default profile depends on the capabilities. escalationByDefault gives the kubelet's
// no_new_privs rule: set only when allowPrivilegeEscalation is false, not when it is unset
// (podlife's default, see SecurityOf).
func SecurityOpts(pod *api.PodSpec, ctr *api.ContainerSpec, imageUser string, loadProfile func(name string) (*specs.LinuxSeccomp, error), escalationByDefault bool) ([]oci.SpecOpts, error) {
	e := SecurityOf(pod, ctr)
	if escalationByDefault && e.escalationUnset {
		e.noNewPrivs = false
	}
	var opts []oci.SpecOpts
	if e.runAsUser != nil || e.runAsGroup != nil {
		// The kubelet runs as RunAsUser, else the image's user (its name, or its UID with
		// the image's group dropped), else root; RunAsGroup, else the user's group.
		user, _, _ := strings.Cut(imageUser, ":")
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
		add, addAll := CapNames(e.caps.Add)
		drop, dropAll := CapNames(e.caps.Drop)
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
	case api.SeccompUnconfined:
		opts = append(opts, oci.WithSeccompUnconfined)
	case api.SeccompLocalhost:
		profile, err := loadProfile(e.seccomp.LocalhostProfile)
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
