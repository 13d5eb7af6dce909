package tasks

import (
	"context"

	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/podlife/podlife/internal/sandboxns"
	"github.com/podlife/podlife/podlife/internal/cgroupfs"
)

// NewPause creates a container with no image: its root is a host directory (the spec's
// root.path), its process and mounts those of opts.
func (t Containerd) NewPause(ctx context.Context, id string, rt Class, labels map[string]string, opts []oci.SpecOpts) (Container, error) {
	ctr, err := t.Client.NewContainer(ctx, id, rt.Runtime, nil, labels, append(opts, rt.SpecOpts...))
	if err != nil {
		return nil, err
	}
	return ctrdContainer{ctr: ctr, cgroup: cgroupfs.Path(t.Namespace, id)}, nil
}

// PinProcessNamespace implements Runtime.PinProcessNamespace.
func (Containerd) PinProcessNamespace(dir string, k sandboxns.Kind, pid int) (string, error) {
	return sandboxns.PinProcess(dir, k, pid)
}
