package podlife

import "context"

// Start is start for the tests of package podlife_test: it returns as soon as the pod is
// registered, so that they can watch the start (Run is the one way a user starts a pod).
func (r *Runtime) Start(ctx context.Context, spec PodSpec) (*Pod, error) { return r.start(ctx, spec) }
