package kubectl

import (
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
)

func running() podlife.ContainerStatus {
	return podlife.ContainerStatus{State: podlife.ContainerState{Running: &podlife.StateRunning{StartedAt: time.Now()}}}
}

func exited(code int) podlife.ContainerStatus {
	return podlife.ContainerStatus{State: podlife.ContainerState{Terminated: &podlife.StateTerminated{ExitCode: code}}}
}

func waiting() podlife.ContainerStatus {
	return podlife.ContainerStatus{State: podlife.ContainerState{Waiting: &podlife.StateWaiting{Reason: reasons.ContainerCreating}}}
}

func TestStatus(t *testing.T) {
	st := podlife.PodStatus{Phase: podlife.PhasePending, ContainerStatuses: []podlife.ContainerStatus{running(), waiting()}}
	if got := Status(st); got != string(reasons.ContainerCreating) {
		t.Errorf("Status %q, want ContainerCreating", got)
	}
	st = podlife.PodStatus{Phase: podlife.PhaseRunning, Stopping: true, ContainerStatuses: []podlife.ContainerStatus{running()}}
	if got := Status(st); got != "Terminating" {
		t.Errorf("Status %q, want Terminating", got)
	}
	st = podlife.PodStatus{Phase: podlife.PhasePending, InitContainerStatuses: []podlife.ContainerStatus{exited(0), running()},
		ContainerStatuses: []podlife.ContainerStatus{waiting()}}
	if got := Status(st); got != "Init:1/2" {
		t.Errorf("Status %q, want Init:1/2", got)
	}
}
