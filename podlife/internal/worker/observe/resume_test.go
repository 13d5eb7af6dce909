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
	} {
		if got := ResumeOf(tc.c); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
