package podlife

import (
	"time"

	"github.com/podlife/podlife/podlife/conditions"
	"github.com/podlife/podlife/podlife/internal/worker"
	"github.com/podlife/podlife/podlife/internal/worker/imagepull"
	"github.com/podlife/podlife/podlife/internal/worker/podsandbox"
	"github.com/podlife/podlife/podlife/internal/worker/podupdate"
	"github.com/podlife/podlife/podlife/internal/worker/record"
	"github.com/podlife/podlife/podlife/internal/worker/status"
)

// The per-pod worker lives in package worker (see its doc); these are the names the Runtime's
// files use for it and for what they share with it.

// podWorker is a pod's worker: its owner loop and the state only the loop touches.
type podWorker = worker.Worker

// podRecord is a pod's record, pod.json (see record.Record).
type podRecord = record.Record

// The files of a pod's directory its worker writes.
const (
	recordFile = record.RecordFile
	statusFile = record.StatusFile
)

// Labels of the containerd containers (see package podsandbox's labels.go).
const (
	labelPodUID    = podsandbox.LabelPodUID
	labelAttempt   = podsandbox.LabelAttempt
	pauseNameInPod = podsandbox.PauseNameInPod
)

func newID() string { return worker.NewID() }

func validateCondition(pod string, t conditions.Type, status conditions.Status) error {
	return podupdate.ValidateCondition(pod, t, status)
}

func checkDeadlineUpdate(pod string, cur *time.Duration, d time.Duration) error {
	return podupdate.CheckDeadlineUpdate(pod, cur, d)
}

func computePhase(restarts status.RestartsFunc, stopping bool, initStatuses, statuses []ContainerStatus, sidecars map[string]bool) Phase {
	return status.ComputePhase(restarts, stopping, initStatuses, statuses, sidecars)
}

func byPolicy(policy RestartPolicy) status.RestartsFunc { return status.ByPolicy(policy) }

func normalizeRef(image string) (string, error) { return imagepull.NormalizeRef(image) }
