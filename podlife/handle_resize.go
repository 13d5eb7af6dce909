package podlife

import "context"

// Resize changes the CPU and memory of the named container while the pod runs (Kubernetes'
// in-place pod resize), as the kubelet does. next replaces the container's Resources whole
// (its ephemeral-storage limit must stay as it is).
//
// The resize is checked with the API server's rules: only an app container or a sidecar is
// resized, no request above its limit, no limit or request removed, the pod's QoS class (from
// every container's requests and limits, MemoryRequest included) unchanged: else a
// *ValidationError (ErrInvalidSpec) names the field. A running container's cgroup is then
// updated in place (CPU quota and shares, memory limit), unless its ResizePolicy says
// RestartContainer for a resource whose request or limit changes: it is then stopped (its
// preStop hook, the pod's grace period) and restarted at once with the new resources, its
// restart count one more; Resize returns once the new instance replaced it, or when ctx ends.
// A memory limit is not lowered to or below the running container's usage: the error then
// wraps ErrResizeNotNow, and nothing changed. A container not running gets the new resources
// when it next starts.
//
// The container's status reports the resources (ContainerStatus.AllocatedResources, and
// Resources while it runs), the pod's record keeps them (an adopter is then given the spec
// as resized: the spec as started is a changed spec), and later restarts use them. The
// error wraps ErrPodStopping once the pod stops, and ErrNotLocal for a pod this Runtime does
// not manage.
func (p *Pod) Resize(ctx context.Context, container string, next Resources) error {
	w, err := p.need("resize")
	if err != nil {
		return err
	}
	return w.Resize(ctx, container, next)
}
