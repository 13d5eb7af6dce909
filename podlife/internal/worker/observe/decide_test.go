package observe

import (
	"testing"

	. "github.com/podlife/podlife/podlife/internal/api"
)

// The adoption decisions, one container at a time: running instances are followed (never
// restarted), exits meanwhile go to the restart policy, restarts cut half-way go on, and an
// interrupted start sequence is reported rather than resumed.
func TestDecide(t *testing.T) {
	completed := ContainerStatus{State: ContainerState{Terminated: &StateTerminated{ExitCode: 0}}}
	failed := ContainerStatus{State: ContainerState{Terminated: &StateTerminated{ExitCode: 1}}}
	for _, tc := range []struct {
		name  string
		kind  string
		insts []Seen
		last  ContainerStatus
		want  Decision
	}{
		{"running", "app", []Seen{{0, TaskRunning}}, ContainerStatus{}, Decision{Action: Follow, Cur: 0}},
		{"running after restarts", "app", []Seen{{3, TaskRunning}}, ContainerStatus{}, Decision{Action: Follow, Cur: 0}},
		{"exited meanwhile", "app", []Seen{{0, TaskStopped}}, ContainerStatus{}, Decision{Action: Exited, Cur: 0}},
		{"init completed, task kept", "init", []Seen{{0, TaskStopped}}, completed, Decision{Action: Exited, Cur: 0}},
		{"init completed, task gone", "init", nil, completed, Decision{Action: Completed, Cur: -1}},
		{"init failed, nothing left", "init", nil, failed, Decision{Action: Interrupted, Cur: -1, Why: `container "c" was not created`}},
		{"ephemeral gone", "ephemeral", nil, failed, Decision{Action: Completed, Cur: -1}},
		{"restart cut before its start", "app", []Seen{{1, TaskCreated}}, ContainerStatus{}, Decision{Action: Start, Cur: 0}},
		{"restart cut before its task, old one left", "app", []Seen{{1, TaskStopped}, {2, TaskNone}}, ContainerStatus{},
			Decision{Action: Exited, Cur: 0, Cut: 1}},
		{"restart cut before its task, nothing older", "app", []Seen{{2, TaskNone}}, failed,
			Decision{Action: Restart, Cur: -1, Cut: 1}},
		{"sidecar running", "sidecar", []Seen{{0, TaskRunning}}, ContainerStatus{}, Decision{Action: Follow, Cur: 0}},
		{"never created", "app", nil, ContainerStatus{}, Decision{Action: Interrupted, Cur: -1, Why: `container "c" was not created`}},
		{"created, never started", "app", []Seen{{0, TaskCreated}}, ContainerStatus{},
			Decision{Action: Interrupted, Cur: 0, Why: `container "c" was not started`}},
		{"first instance without task", "app", []Seen{{0, TaskNone}}, ContainerStatus{},
			Decision{Action: Interrupted, Cur: 0, Why: `container "c" has no task`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Decide("c", tc.kind, tc.insts, tc.last); got != tc.want {
				t.Errorf("Decide = %+v, want %+v", got, tc.want)
			}
		})
	}
}
