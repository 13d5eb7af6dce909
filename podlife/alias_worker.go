package podlife

import (
	"github.com/podlife/podlife/podlife/internal/worker"
	"github.com/podlife/podlife/podlife/internal/worker/podsandbox"
)

// Container is a handle on one container of a pod, across its restarts. Its methods are safe
// for concurrent use: its state belongs to the pod's owner loop, and reads come from the pod's
// last snapshot. Its methods are documented at [worker.Container].
type Container = worker.Container

// ProbeResult is the result of one probe of a container of a pod this Runtime manages, before
// thresholds are applied: one a probe period (see Runtime.SubscribeProbes). Its fields are
// documented at [worker.ProbeResult].
type ProbeResult = worker.ProbeResult

// Labels podlife puts on every containerd container it creates (with the pod's own labels). A
// program or an operator finds a pod's containerd containers with these two, e.g.
// `ctr -n podlife containers ls labels."podlife.io/pod"==web`.
const (
	// labelPod is the pod's name.
	labelPod = podsandbox.LabelPod
	// labelContainer is the container's name in its pod ("POD" for a pod's pause).
	labelContainer = podsandbox.LabelContainer
)

// reasonEvicted is the kubelet's reason of an evicted pod and of its Warning event, also the
// event of a pod refused under disk pressure.
const reasonEvicted Reason = worker.ReasonEvicted
