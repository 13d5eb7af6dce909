package podlife

import "strconv"

// Labels podlife puts on every containerd object it creates, enough to find a pod's objects again.
const (
	LabelPod       = "podlife.io/pod"
	LabelPodUID    = "podlife.io/pod-uid"
	LabelNamespace = "podlife.io/namespace"
	LabelContainer = "podlife.io/container"
	LabelKind      = "podlife.io/kind" // "init" or "app"
	LabelAttempt   = "podlife.io/attempt"
	// annotationShimGroup (an OCI spec annotation) makes containerd's runc shim serve all
	// containers with the same value in one process.
	annotationShimGroup = "io.containerd.runc.v2.group"
)

func (p *Pod) labels(c *Container) map[string]string {
	l := make(map[string]string, len(p.spec.Labels)+7)
	for k, v := range p.spec.Labels {
		l[k] = v
	}
	l[LabelPod] = p.name
	l[LabelPodUID] = p.uid
	l[LabelNamespace] = p.spec.Namespace
	l[LabelContainer] = c.spec.Name
	l[LabelAttempt] = strconv.Itoa(0)
	l[LabelKind] = "app"
	if c.init {
		l[LabelKind] = "init"
	}
	return l
}

// shimGroup is the runc shim group of the pod's containers ("" for one shim per container).
func (p *Pod) shimGroup() string {
	if p.rt.cfg.Shims == ShimPerPod {
		return "podlife-" + p.uid
	}
	return ""
}

// withShim runs fn, a NewTask of one of the pod's containers. With one shim per pod, the first
// NewTask starts the shim and must run alone: concurrent first starts race in containerd's runc
// shim manager for the group's socket, and the loser's shim is left running with nothing to
// serve (a leaked process). Once the shim is up, NewTasks run in parallel.
func (p *Pod) withShim(fn func() error) error {
	if p.shimGroup() == "" {
		return fn()
	}
	p.shimMu.Lock()
	if p.shimUp {
		p.shimMu.Unlock()
		return fn()
	}
	defer p.shimMu.Unlock()
	err := fn()
	if err == nil {
		p.shimUp = true
	}
	return err
}
