package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"path/filepath"

	"github.com/opencontainers/runtime-spec/specs-go"
	"github.com/podlife/podlife/podlife/internal/worker/volmount"
)

// privateMounts are the private mount points one instance's create takes its volumes from
// (see volmount.Private).
type privateMounts struct{ *volmount.Private }

func (pm privateMounts) release() error          { return pm.Private.Release() }
func (pm privateMounts) explain(err error) error { return pm.Private.Explain(err) }

// volumeMounts returns the OCI mounts of the container's volumeMounts for instance id (see
// volmount.Mounts), its private mount points under the pod's directory. The caller releases
// the private mounts once the container's task is created.
func (c *Container) volumeMounts(id string) ([]specs.Mount, privateMounts, error) {
	p := c.pod
	out, pm, err := volmount.Mounts(&p.spec, c.spec, p.sandbox.VolumeDir, filepath.Join(p.sandbox.Dir(), "subpaths", id))
	return out, privateMounts{pm}, err
}

// volumeReadOnly tells whether a volume is always mounted read-only (files and image volumes).
func (p *Worker) volumeReadOnly(name string) bool { return volmount.ReadOnly(&p.spec, name) }

// applyFSGroup gives a volume podlife made to the pod's fsGroup (see volmount.ApplyFSGroup).
func applyFSGroup(s *PodSpec, dir string, readOnly bool) error {
	return volmount.ApplyFSGroup(s, dir, readOnly)
}
