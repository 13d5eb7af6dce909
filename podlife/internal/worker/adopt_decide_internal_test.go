package worker

import (
	"testing"

	. "github.com/podlife/podlife/podlife/internal/api"
)

// The adoption decisions, one container at a time: running instances are followed (never
// restarted), exits meanwhile go to the restart policy, restarts cut half-way go on, and an
// interrupted start sequence is reported rather than resumed.
func TestDecideContainer(t *testing.T) {
	completed := ContainerStatus{State: ContainerState{Terminated: &StateTerminated{ExitCode: 0}}}
	failed := ContainerStatus{State: ContainerState{Terminated: &StateTerminated{ExitCode: 1}}}
	for _, tc := range []struct {
		name  string
		kind  string
		insts []foundInstance
		last  ContainerStatus
		want  containerDecision
	}{
		{"running", "app", []foundInstance{{0, taskRunning}}, ContainerStatus{}, containerDecision{action: actFollow, cur: 0}},
		{"running after restarts", "app", []foundInstance{{3, taskRunning}}, ContainerStatus{}, containerDecision{action: actFollow, cur: 0}},
		{"exited meanwhile", "app", []foundInstance{{0, taskStopped}}, ContainerStatus{}, containerDecision{action: actExited, cur: 0}},
		{"init completed, task kept", "init", []foundInstance{{0, taskStopped}}, completed, containerDecision{action: actExited, cur: 0}},
		{"init completed, task gone", "init", nil, completed, containerDecision{action: actCompleted, cur: -1}},
		{"init failed, nothing left", "init", nil, failed, containerDecision{action: actInterrupted, cur: -1, why: `container "c" was not created`}},
		{"ephemeral gone", "ephemeral", nil, failed, containerDecision{action: actCompleted, cur: -1}},
		{"restart cut before its start", "app", []foundInstance{{1, taskCreated}}, ContainerStatus{}, containerDecision{action: actStart, cur: 0}},
		{"restart cut before its task, old one left", "app", []foundInstance{{1, taskStopped}, {2, taskNone}}, ContainerStatus{},
			containerDecision{action: actExited, cur: 0, cut: 1}},
		{"restart cut before its task, nothing older", "app", []foundInstance{{2, taskNone}}, failed,
			containerDecision{action: actRestart, cur: -1, cut: 1}},
		{"sidecar running", "sidecar", []foundInstance{{0, taskRunning}}, ContainerStatus{}, containerDecision{action: actFollow, cur: 0}},
		{"never created", "app", nil, ContainerStatus{}, containerDecision{action: actInterrupted, cur: -1, why: `container "c" was not created`}},
		{"created, never started", "app", []foundInstance{{0, taskCreated}}, ContainerStatus{},
			containerDecision{action: actInterrupted, cur: 0, why: `container "c" was not started`}},
		{"first instance without task", "app", []foundInstance{{0, taskNone}}, ContainerStatus{},
			containerDecision{action: actInterrupted, cur: 0, why: `container "c" has no task`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := decideContainer("c", tc.kind, tc.insts, tc.last); got != tc.want {
				t.Errorf("decideContainer = %+v, want %+v", got, tc.want)
			}
		})
	}
}
