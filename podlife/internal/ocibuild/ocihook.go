package ocibuild

import (
	"context"
	"fmt"

	"github.com/containerd/containerd/v2/core/containers"
	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/opencontainers/runtime-spec/specs-go"
)

// OCIHookOpts is a container's OCIHook (see ContainerSpec.OCIHook) as the containerd spec
// option that applies it: none if hook is nil, else one. The spec fingerprint records the hook
// as this slice, the type and length of the former ContainerSpec.SpecOpts (see specfp.Fields).
func OCIHookOpts(hook func(ctx context.Context, spec *specs.Spec) error) []oci.SpecOpts {
	if hook == nil {
		return nil
	}
	return []oci.SpecOpts{func(ctx context.Context, _ oci.Client, _ *containers.Container, s *oci.Spec) error {
		if err := hook(ctx, s); err != nil {
			return fmt.Errorf("OCIHook: %w", err)
		}
		return nil
	}}
}
