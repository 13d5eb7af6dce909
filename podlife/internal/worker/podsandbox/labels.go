package podsandbox

import (
	"strconv"
	"syscall"

	"github.com/podlife/podlife/podlife/internal/layout"
)

// Labels podlife puts on every containerd container it creates (with the pod's own labels). A
// program or an operator finds a pod's containerd containers with the first two, e.g.
// `ctr -n podlife containers ls labels."podlife.io/pod"==web`; the others are podlife's
// bookkeeping and may change. Their keys and values are a format: pods started by an older
// podlife are found by them.
const (
	// LabelPod is the pod's name.
	LabelPod = "podlife.io/pod"
	// LabelContainer is the container's name in its pod ("POD" for a pod's pause).
	LabelContainer = "podlife.io/container"
	// LabelPodUID is the pod's UID (see Worker.UID).
	LabelPodUID = "podlife.io/pod-uid"
	// LabelNamespace is the pod's namespace (PodSpec.Namespace).
	LabelNamespace = "podlife.io/namespace"
	// LabelKind is the container's kind: "init", "app", "ephemeral" or LabelKindPause.
	LabelKind = "podlife.io/kind"
	// LabelAttempt is the instance's attempt: 0, then one more at each restart.
	LabelAttempt = "podlife.io/attempt"
	// LabelStopSignal is the container's stop signal (a number), for a process that stops the
	// pod after its manager died.
	LabelStopSignal = "podlife.io/stop-signal"
	// AnnotationShimGroup (an OCI spec annotation) makes containerd's runc shim serve all
	// containers with the same value in one process.
	AnnotationShimGroup = "io.containerd.runc.v2.group"
)

// The values of LabelKind.
const (
	KindInit      = "init"
	KindApp       = "app"
	KindEphemeral = "ephemeral"
	// LabelKindPause is the LabelKind value of a pod's pause container.
	LabelKindPause = "pause"
)

// KindOf is the LabelKind value of a container: an init container's, an ephemeral one's, or
// else an app container's.
func KindOf(init, ephemeral bool) string {
	switch {
	case init:
		return KindInit
	case ephemeral:
		return KindEphemeral
	}
	return KindApp
}

// PauseNameInPod is the LabelContainer value of the pause container (not a valid container
// name, so it never collides with one).
const PauseNameInPod = "POD"

// PodLabels is what a pod's containerd containers are labelled with, whatever the container.
type PodLabels struct {
	Pod, UID, Namespace, StateDir string
	Labels                        map[string]string // the pod's own (PodSpec.Labels)
}

// For is the labels of a container of the pod named container, of that kind, attempt 0 (the
// caller sets its LabelAttempt and LabelStopSignal).
func (l PodLabels) For(container, kind string) map[string]string {
	m := make(map[string]string, len(l.Labels)+7)
	for k, v := range l.Labels {
		m[k] = v
	}
	m[LabelPod] = l.Pod
	m[LabelPodUID] = l.UID
	m[layout.LabelStateDir] = l.StateDir
	m[LabelNamespace] = l.Namespace
	m[LabelContainer] = container
	m[LabelAttempt] = strconv.Itoa(0)
	m[LabelKind] = kind
	return m
}

// Pause is the labels of the pod's pause. Its stop signal is recorded for the pod's stop
// signals, as the containers' are; the stop kills the pause at once: it is stopped last, when
// nothing is left to stop gracefully.
func (l PodLabels) Pause() map[string]string {
	m := l.For(PauseNameInPod, LabelKindPause)
	m[LabelStopSignal] = strconv.Itoa(int(syscall.SIGKILL))
	return m
}
