package podlife

import (
	"github.com/containerd/containerd/v2/pkg/oci"

	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/runtimeclass"
)

// runtimeClassCrun is the built-in runtime class that runs a pod's containers with crun (the
// Debian package crun) under containerd's runc shim, unless Config.RuntimeClasses defines a
// class of that name.
const runtimeClassCrun = runtimeclass.Crun

// RuntimeClass is a named way to run a pod's containers (Kubernetes' RuntimeClass, whose
// handler the kubelet maps to a containerd runtime): a containerd runtime and, for the runc
// shim, the OCI runtime binary it drives. A pod picks one with PodSpec.RuntimeClassName. Its
// fields are documented at [runtimeclass.Class].
type RuntimeClass = runtimeclass.Class

// ctrRuntime is a resolved runtime class (see runtimeclass.Handler).
type ctrRuntime struct{ runtimeclass.Handler }

// runtime is the containerd runtime and its options.
func (rt ctrRuntime) runtime() ctrd.Runtime { return rt.Handler.Runtime() }

// specOpts are the spec options of the runtime class, applied after all others.
func (rt ctrRuntime) specOpts() []oci.SpecOpts { return rt.Handler.SpecOpts() }

// specVersions caches crun's spec versions (see runtimeclass.Versions).
type specVersions = runtimeclass.Versions

// runtimeFor resolves a pod's runtimeClassName (see runtimeclass.Resolve); c has its
// defaults filled in.
func (c *Config) runtimeFor(s *PodSpec, versions *specVersions) (ctrRuntime, error) {
	h, err := runtimeclass.Resolve(c.RuntimeClasses, c.RuntimeName, s, versions)
	return ctrRuntime{h}, err
}
