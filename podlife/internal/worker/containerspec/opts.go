package containerspec

import (
	"fmt"
	"path/filepath"

	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/internal/sandboxns"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/ocibuild"
)

// Sandbox is what a container joins of its pod's sandbox: the pinned namespaces and the
// directory of the generated /etc files.
type Sandbox struct {
	Hostname string                    // the pod's hostname (its UTS namespace's)
	NSPaths  map[sandboxns.Kind]string // the pinned network, UTS and IPC namespaces
	PIDNS    string                    // the pause's PID namespace (ShareProcessNamespace)
	EtcDir   string                    // holds hosts, hostname and resolv.conf
}

// Input is what Opts reads of a container and its pod: values, and functions for what is
// resolved only if the spec asks for it.
type Input struct {
	Pod       *api.PodSpec
	Container *api.ContainerSpec
	// Entrypoint and User are the image config's.
	Entrypoint []string
	User       string
	TTY        bool
	Resources  api.Resources // the container's current resources (a resize may have changed them)
	Sandbox    Sandbox
	// Volumes are the container's volume mounts (see volmount.Mounts), the termination
	// message's included.
	Volumes []specs.Mount
	// Annotations are the spec's annotations (the shim group's), nil for none.
	Annotations map[string]string
	// AllowPrivilegeEscalationByDefault is the Runtime's rule for no_new_privs.
	AllowPrivilegeEscalationByDefault bool
	// FieldValue resolves an env's pod field (see FieldValue).
	FieldValue func(api.PodField) (string, error)
	// EphemeralPID is an ephemeral container's PID namespace, asked for only if the pod shares
	// neither the host's nor its own; nil for other containers.
	EphemeralPID func() ([]oci.SpecOpts, error)
	// LoadSeccompProfile reads a Localhost seccomp profile.
	LoadSeccompProfile func(name string) (*specs.LinuxSeccomp, error)
}

// Opts builds the container's OCI spec options, on top of containerd's default spec and the
// image's config.
func Opts(in Input) ([]oci.SpecOpts, error) {
	c, ps, s := in.Container, in.Pod, in.Sandbox
	var opts []oci.SpecOpts // on top of the image's config (see tasks.Runtime.NewContainer)
	switch {
	case len(c.Command) > 0:
		opts = append(opts, oci.WithProcessArgs(append(append([]string{}, c.Command...), c.Args...)...))
	case len(c.Args) > 0:
		opts = append(opts, oci.WithProcessArgs(append(append([]string{}, in.Entrypoint...), c.Args...)...))
	}
	if len(c.Env) > 0 {
		env := make([]string, len(c.Env))
		for i, e := range c.Env {
			v := e.Value
			if e.From != "" {
				var err error
				if v, err = in.FieldValue(e.From); err != nil {
					return nil, fmt.Errorf("env %s: %w", e.Name, err)
				}
			}
			env[i] = e.Name + "=" + v
		}
		opts = append(opts, oci.WithEnv(env))
	}
	if c.WorkingDir != "" {
		opts = append(opts, oci.WithProcessCwd(c.WorkingDir))
	}
	if in.TTY {
		opts = append(opts, oci.WithTTY)
	}
	opts = append(opts, SharedNamespaceOpts(ps, s)...)
	switch {
	case ps.HostPID:
		opts = append(opts, oci.WithHostNamespace(specs.PIDNamespace))
	case ps.ShareProcessNamespace:
		opts = append(opts, oci.WithLinuxNamespace(specs.LinuxNamespace{Type: specs.PIDNamespace, Path: s.PIDNS}))
	case in.EphemeralPID != nil:
		pid, err := in.EphemeralPID()
		if err != nil {
			return nil, err
		}
		opts = append(opts, pid...)
	}
	if ps.HostIPC {
		// The host's POSIX shared memory too, as the CRI plugin does with hostIPC.
		opts = append(opts, ocibuild.WithHostDevShm)
	}
	mounts := []specs.Mount{
		ocibuild.BindMount(filepath.Join(s.EtcDir, "hosts"), "/etc/hosts", false),
		ocibuild.BindMount(filepath.Join(s.EtcDir, "hostname"), "/etc/hostname", false),
		ocibuild.BindMount(filepath.Join(s.EtcDir, "resolv.conf"), "/etc/resolv.conf", false),
		ocibuild.CgroupMount(c.SecurityContext != nil && c.SecurityContext.Privileged),
	}
	mounts = append(mounts, in.Volumes...)
	opts = append(opts, ocibuild.ResourceOpts(in.Resources)...)
	opts = append(opts, oci.WithMounts(mounts))
	// The effective security context (see ocibuild.SecurityOpts), with Localhost seccomp
	// profiles read by the Runtime and no_new_privs by its rule.
	sec, err := ocibuild.SecurityOpts(ps, c, in.User, in.LoadSeccompProfile, in.AllowPrivilegeEscalationByDefault)
	if err != nil {
		return nil, err
	}
	opts = append(opts, sec...)
	if len(in.Annotations) > 0 {
		opts = append(opts, oci.WithAnnotations(in.Annotations))
	}
	opts = append(opts, ocibuild.OCIHookOpts(c.OCIHook)...)
	return opts, nil
}

// SharedNamespaceOpts joins the pod's network, UTS and IPC namespaces, or the host's with
// HostNetwork and HostIPC. The pause and every container have them.
func SharedNamespaceOpts(ps *api.PodSpec, s Sandbox) []oci.SpecOpts {
	var opts []oci.SpecOpts
	if ps.HostNetwork {
		opts = append(opts, oci.WithHostNamespace(specs.NetworkNamespace), oci.WithHostNamespace(specs.UTSNamespace))
	} else {
		opts = append(opts,
			oci.WithHostname(s.Hostname),
			oci.WithLinuxNamespace(specs.LinuxNamespace{Type: specs.NetworkNamespace, Path: s.NSPaths[sandboxns.Net]}),
			oci.WithLinuxNamespace(specs.LinuxNamespace{Type: specs.UTSNamespace, Path: s.NSPaths[sandboxns.UTS]}))
	}
	if ps.HostIPC {
		opts = append(opts, oci.WithHostNamespace(specs.IPCNamespace))
	} else {
		opts = append(opts, oci.WithLinuxNamespace(specs.LinuxNamespace{Type: specs.IPCNamespace, Path: s.NSPaths[sandboxns.IPC]}))
	}
	return opts
}
