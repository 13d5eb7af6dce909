package observe

import (
	"testing"

	"github.com/podlife/podlife/podlife/internal/worker/record"
)

// What the resume of a supervised pod does with each container's current instance: follow
// it, resume its probes (its startup probe's success kept), fail a postStart hook its manager's
// death cut, start a restart cut before its start; nothing is started in a pod whose start was
// interrupted.
func TestResumeOf(t *testing.T) {
	hookCut := record.ContainerSupervision{PostStart: "i"}
	started := record.ContainerSupervision{Started: "i"}
	for _, tc := range []struct {
		name string
		c    Current
		want Resume
	}{
		{"running", Current{ID: "i", Task: TaskRunning}, Resume{Watch: true, Probes: true, StartupPassed: true}},
		{"running, startup probe pending", Current{ID: "i", Task: TaskRunning, StartupProbe: true}, Resume{Watch: true, Probes: true}},
		{"running, startup probe passed", Current{ID: "i", Task: TaskRunning, StartupProbe: true, Sup: started}, Resume{Watch: true, Probes: true, StartupPassed: true}},
		{"running, start interrupted", Current{ID: "i", Task: TaskRunning, Interrupted: true}, Resume{Watch: true}},
		{"exited", Current{ID: "i", Task: TaskStopped}, Resume{Watch: true}},
		{"postStart cut, running", Current{ID: "i", Task: TaskRunning, PostStart: true, Sup: hookCut}, Resume{Watch: true, FailPostStart: true}},
		{"postStart cut, exited", Current{ID: "i", Task: TaskStopped, PostStart: true, Sup: hookCut}, Resume{MarkPostStartFailed: true, Watch: true}},
		{"postStart of another instance", Current{ID: "j", Task: TaskRunning, PostStart: true, Sup: hookCut}, Resume{Watch: true, Probes: true, StartupPassed: true}},
		{"ephemeral running", Current{ID: "i", Task: TaskRunning, Ephemeral: true}, Resume{Attach: true, Watch: true, Probes: true, StartupPassed: true}},
		{"restart cut before its start", Current{ID: "i", Attempt: 2, Task: TaskCreated}, Resume{Start: true}},
		{"restart cut, start interrupted", Current{ID: "i", Attempt: 2, Task: TaskCreated, Interrupted: true}, Resume{}},
		{"first instance created", Current{ID: "i", Task: TaskCreated}, Resume{}},
		{"no task", Current{ID: "i", Task: TaskNone}, Resume{}},
		{"watch only, running", Current{ID: "i", Task: TaskRunning, PostStart: true, Sup: hookCut, Ephemeral: true, WatchOnly: true}, Resume{Watch: true}},
		{"watch only, exited", Current{ID: "i", Task: TaskStopped, PostStart: true, Sup: hookCut, WatchOnly: true}, Resume{Watch: true}},
		{"watch only, restart cut", Current{ID: "i", Attempt: 2, Task: TaskCreated, WatchOnly: true}, Resume{}},
	} {
		if got := ResumeOf(tc.c); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// What the resume of a bound pod does as a whole: supervise it, finish the stop its previous
// manager began, only follow it for a stop, tear a stopped pod down again, or fail a pod whose
// start was interrupted.
func TestResumePodOf(t *testing.T) {
	intent := &record.StopIntent{}
	const failed = "The pod's start sequence was interrupted by its previous manager's death (the pod's pause is missing): it is not resumed; remove the pod"
	for _, tc := range []struct {
		name    string
		pl      Plan
		intent  *record.StopIntent
		forStop bool
		want    PodResume
	}{
		{"running", Plan{}, nil, false, PodResume{SandboxReady: true}},
		{"stop begun", Plan{}, intent, false, PodResume{SandboxReady: true, Stopping: true, FinishStop: true, Why: ", to finish the stop it began"}},
		{"for stop", Plan{}, nil, true, PodResume{SandboxReady: true, Stopping: true, Why: ", to stop it"}},
		{"for stop, stop begun", Plan{}, intent, true, PodResume{SandboxReady: true, Stopping: true, Why: ", to stop it"}},
		{"stopped", Plan{Stopped: true}, nil, false, PodResume{Stopping: true}},
		{"stopped, stop begun", Plan{Stopped: true}, intent, false, PodResume{Stopping: true, Why: ", to finish the stop it began"}},
		{"interrupted", Plan{Interrupted: "the pod's pause is missing"}, nil, false, PodResume{Failed: failed}},
		{"interrupted, stop begun", Plan{Interrupted: "the pod's pause is missing"}, intent, false, PodResume{Stopping: true, FinishStop: true, Why: ", to finish the stop it began"}},
		{"interrupted, for stop", Plan{Interrupted: "the pod's pause is missing"}, nil, true, PodResume{Stopping: true, Why: ", to stop it"}},
	} {
		if got := ResumePodOf(&tc.pl, tc.intent, tc.forStop); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestMemberOf(t *testing.T) {
	for _, tc := range []struct {
		init, sidecar bool
		kind          string
	}{{false, false, "app"}, {true, false, "init"}, {true, true, "sidecar"}} {
		if got := MemberOf("c", tc.init, tc.sidecar); got != (Member{Name: "c", Kind: tc.kind}) {
			t.Errorf("MemberOf(init %v, sidecar %v) = %+v, want kind %s", tc.init, tc.sidecar, got, tc.kind)
		}
	}
}
