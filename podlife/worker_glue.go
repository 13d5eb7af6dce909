package podlife

import (
	"time"

	"github.com/containerd/containerd/v2/pkg/cio"

	"github.com/podlife/podlife/podlife/internal/worker"
)

// The per-pod worker lives in package worker (see its doc); these are the names the Runtime's
// files use for it and for what they share with it.

// podWorker is a pod's worker: its owner loop and the state only the loop touches.
type podWorker = worker.Worker

// podRecord is a pod's record, pod.json (see worker.Record).
type podRecord = worker.Record

// The files of a pod's directory its worker writes.
const (
	recordFile = worker.RecordFile
	statusFile = worker.StatusFile
)

// Labels of the containerd containers (see package podsandbox's labels.go).
const (
	labelPodUID    = worker.LabelPodUID
	labelAttempt   = worker.LabelAttempt
	pauseNameInPod = worker.PauseNameInPod
)

func newID() string { return worker.NewID() }

func attachFIFOs(podDir, id string, stdin, tty bool) cio.Config {
	return worker.AttachFIFOs(podDir, id, stdin, tty)
}

func validateCondition(pod string, t ConditionType, status ConditionStatus) error {
	return worker.ValidateCondition(pod, t, status)
}

func checkDeadlineUpdate(pod string, cur *time.Duration, d time.Duration) error {
	return worker.CheckDeadlineUpdate(pod, cur, d)
}

func deadlineUpdate(spec, recorded PodSpec, rec podRecord) (PodSpec, PodSpec, *time.Duration) {
	return worker.DeadlineUpdate(spec, recorded, rec)
}

func computePhase(restarts worker.RestartsFunc, stopping bool, initStatuses, statuses []ContainerStatus, sidecars map[string]bool) Phase {
	return worker.ComputePhase(restarts, stopping, initStatuses, statuses, sidecars)
}

func byPolicy(policy RestartPolicy) worker.RestartsFunc { return worker.ByPolicy(policy) }

func normalizeRef(image string) (string, error) { return worker.NormalizeRef(image) }
