package worker

import (
	"context"
	"fmt"

	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/internal/sandboxns"
	"github.com/podlife/podlife/podlife/internal/ocibuild"
)

// specOpts builds the container's OCI spec options, on top of containerd's default spec, with
// volumes the container's volume mounts (see volumeMounts).
func (c *Container) specOpts(ctx context.Context, volumes []specs.Mount) ([]oci.SpecOpts, error) {
	p := c.pod
	s := p.sandbox
	cfg := c.imageConfig
	var opts []oci.SpecOpts // on top of the image's config (see tasks.Runtime.NewContainer)
	switch {
	case len(c.spec.Command) > 0:
		opts = append(opts, oci.WithProcessArgs(append(append([]string{}, c.spec.Command...), c.spec.Args...)...))
	case len(c.spec.Args) > 0:
		opts = append(opts, oci.WithProcessArgs(append(append([]string{}, cfg.Config.Entrypoint...), c.spec.Args...)...))
	}
	if len(c.spec.Env) > 0 {
		env := make([]string, len(c.spec.Env))
		for i, e := range c.spec.Env {
			v := e.Value
			if e.From != "" {
				var err error
				if v, err = p.fieldValue(e.From); err != nil {
					return nil, fmt.Errorf("env %s: %w", e.Name, err)
				}
			}
			env[i] = e.Name + "=" + v
		}
		opts = append(opts, oci.WithEnv(env))
	}
	if c.spec.WorkingDir != "" {
		opts = append(opts, oci.WithProcessCwd(c.spec.WorkingDir))
	}
	if c.tty {
		opts = append(opts, oci.WithTTY)
	}
	opts = append(opts, p.sharedNamespaceOpts()...)
	switch {
	case p.spec.HostPID:
		opts = append(opts, oci.WithHostNamespace(specs.PIDNamespace))
	case p.spec.ShareProcessNamespace:
		opts = append(opts, oci.WithLinuxNamespace(specs.LinuxNamespace{Type: specs.PIDNamespace, Path: s.PIDNSPath()}))
	case c.ephemeral:
		pid, err := c.ephemeralPIDOpts()
		if err != nil {
			return nil, err
		}
		opts = append(opts, pid...)
	}
	if p.spec.HostIPC {
		// The host's POSIX shared memory too, as the CRI plugin does with hostIPC.
		opts = append(opts, ocibuild.WithHostDevShm)
	}
	mounts := []specs.Mount{
		ocibuild.BindMount(s.Etc("hosts"), "/etc/hosts", false),
		ocibuild.BindMount(s.Etc("hostname"), "/etc/hostname", false),
		ocibuild.BindMount(s.Etc("resolv.conf"), "/etc/resolv.conf", false),
		ocibuild.CgroupMount(c.spec.SecurityContext != nil && c.spec.SecurityContext.Privileged),
	}
	mounts = append(mounts, volumes...)
	opts = append(opts, ocibuild.ResourceOpts(c.resources())...)
	opts = append(opts, oci.WithMounts(mounts))
	sec, err := c.securityOpts()
	if err != nil {
		return nil, err
	}
	opts = append(opts, sec...)
	if g := p.shimGroup(); g != "" {
		opts = append(opts, oci.WithAnnotations(map[string]string{annotationShimGroup: g}))
	}
	opts = append(opts, ocibuild.OCIHookOpts(c.spec.OCIHook)...)
	return opts, nil
}

// sharedNamespaceOpts joins the pod's network, UTS and IPC namespaces, or the host's with
// HostNetwork and HostIPC. The pause and every container have them.
func (p *Worker) sharedNamespaceOpts() []oci.SpecOpts {
	s := p.sandbox
	var opts []oci.SpecOpts
	if p.spec.HostNetwork {
		opts = append(opts, oci.WithHostNamespace(specs.NetworkNamespace), oci.WithHostNamespace(specs.UTSNamespace))
	} else {
		opts = append(opts,
			oci.WithHostname(s.Hostname()),
			oci.WithLinuxNamespace(specs.LinuxNamespace{Type: specs.NetworkNamespace, Path: s.NSPath(sandboxns.Net)}),
			oci.WithLinuxNamespace(specs.LinuxNamespace{Type: specs.UTSNamespace, Path: s.NSPath(sandboxns.UTS)}))
	}
	if p.spec.HostIPC {
		opts = append(opts, oci.WithHostNamespace(specs.IPCNamespace))
	} else {
		opts = append(opts, oci.WithLinuxNamespace(specs.LinuxNamespace{Type: specs.IPCNamespace, Path: s.NSPath(sandboxns.IPC)}))
	}
	return opts
}

// volumeSource is where a pod volume lives on the host.
func (p *Worker) volumeSource(name string) string {
	for _, v := range p.spec.Volumes {
		if v.Name == name && v.HostPath != nil {
			return v.HostPath.Path
		}
	}
	return p.sandbox.VolumeDir(name)
}

// volumeReadOnly tells whether a volume is always mounted read-only (files and image volumes).
func (p *Worker) volumeReadOnly(name string) bool {
	for _, v := range p.spec.Volumes {
		if v.Name == name {
			return v.Files != nil || v.Image != nil
		}
	}
	return false
}
