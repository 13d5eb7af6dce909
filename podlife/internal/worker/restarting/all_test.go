package restarting_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/worker/restarting"
)

func TestAllState(t *testing.T) {
	var a restarting.All[int]
	if handled, start := a.Exit(1, false, false); handled || start {
		t.Fatalf("an exit without a RestartAllContainers rule: handled %v, start %v", handled, start)
	}
	if handled, start := a.Exit(1, true, true); handled || start {
		t.Fatalf("a rule's exit while the pod stops: handled %v, start %v", handled, start)
	}
	if handled, start := a.Exit(1, true, false); !handled || !start || !a.Active() {
		t.Fatalf("a rule's exit: handled %v, start %v, active %v; want a restart started", handled, start, a.Active())
	}
	a.Kill(2)
	if handled, start := a.Exit(2, false, false); !handled || start {
		t.Fatalf("the exit of an instance the restart stopped: handled %v, start %v", handled, start)
	}
	if handled, start := a.Exit(3, true, false); !handled || start {
		t.Fatalf("a rule's exit during a restart: handled %v, start %v; want another one after it", handled, start)
	}
	if !a.End(true) || !a.Active() {
		t.Fatal("End after a rule's exit meanwhile: want another restart, active")
	}
	if handled, _ := a.Exit(2, false, false); handled {
		t.Fatal("an instance killed by the previous restart is not this one's")
	}
	if a.End(true) || a.Active() {
		t.Fatal("End with nothing asked meanwhile: want none left")
	}
	a.Exit(4, true, false)
	a.Exit(5, true, false)
	if a.End(false) || a.Active() {
		t.Fatal("End of a stopping pod: want no restart again")
	}
}

func TestSetCondition(t *testing.T) {
	t0, t1 := time.Unix(100, 0), time.Unix(200, 0)
	conds := restarting.SetCondition(nil, restarting.Condition(true, t0))
	if len(conds) != 1 || conds[0].Status != api.ConditionTrue || conds[0].Reason != string(api.ReasonRestartAllContainersStarted) {
		t.Fatalf("conditions %+v", conds)
	}
	conds = restarting.SetCondition(conds, restarting.Condition(true, t1))
	if !conds[0].LastTransitionTime.Equal(t0) {
		t.Errorf("same status again moved the transition time to %v", conds[0].LastTransitionTime)
	}
	conds = restarting.SetCondition(conds, restarting.Condition(false, t1))
	if len(conds) != 1 || conds[0].Status != api.ConditionFalse || !conds[0].LastTransitionTime.Equal(t1) {
		t.Errorf("conditions %+v, want one False at %v", conds, t1)
	}
}

// fakePod records the calls of a restart of all the containers.
type fakePod struct {
	mu      sync.Mutex
	calls   []string
	seqDone chan struct{}
	again   int
}

func (f *fakePod) note(format string, args ...any) {
	f.mu.Lock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}

func (f *fakePod) SequenceDone() <-chan struct{} { return f.seqDone }
func (f *fakePod) Emit(c string, _ api.EventType, r api.Reason, _ string) {
	f.note("event %s %s", c, r)
}
func (f *fakePod) SetRestarting(on bool) { f.note("restarting %v", on) }
func (f *fakePod) Kill(name string) func() {
	if name == "gone" {
		return nil
	}
	return func() { f.note("kill %s", name) }
}
func (f *fakePod) Stopping() bool { return false }
func (f *fakePod) Rerun(_ context.Context, name string) error {
	f.note("rerun %s", name)
	return nil
}
func (f *fakePod) AwaitInit(_ context.Context, name string) bool {
	f.note("await %s", name)
	return true
}
func (f *fakePod) StartApps(context.Context) error { f.note("start apps"); return nil }
func (f *fakePod) End(context.Context) bool {
	f.note("end")
	f.again--
	return f.again >= 0
}
func (f *fakePod) Info(string, ...any) {}

func TestRunAll(t *testing.T) {
	done := make(chan struct{})
	close(done)
	f := &fakePod{seqDone: done, again: 1}
	restarting.RunAll(context.Background(), f, restarting.Plan{Inits: []string{"i1", "gone"}, Apps: []string{"a"}, Trigger: "a"})
	kills := func(calls []string) []string {
		var k []string
		for _, c := range calls {
			if strings.HasPrefix(c, "kill ") {
				k = append(k, c)
			}
		}
		slices.Sort(k)
		return k
	}
	once := []string{"event a Killing", "restarting true", "kill a", "kill i1", "restarting false",
		"rerun i1", "await i1", "rerun gone", "await gone", "start apps", "end"}
	want := slices.Concat(once, once)
	got := f.calls
	if !slices.Equal(kills(got), kills(want)) || len(got) != len(want) {
		t.Fatalf("calls %q, want %q (the kills in any order)", got, want)
	}
	for i := range got {
		if !strings.HasPrefix(want[i], "kill ") && got[i] != want[i] {
			t.Fatalf("call %d: %q, want %q (all: %q)", i, got[i], want[i], got)
		}
	}

	// An init container's rule while the start sequence runs restarts the init containers up
	// to it, not the app containers.
	f = &fakePod{seqDone: make(chan struct{})}
	restarting.RunAll(context.Background(), f, restarting.Plan{Inits: []string{"i1", "i2", "i3"}, Apps: []string{"a"}, Trigger: "i2", TriggerInit: true})
	want = []string{"event i2 Killing", "restarting true", "kill i1", "kill i2", "kill i3", "restarting false",
		"rerun i1", "await i1", "rerun i2", "await i2", "end"}
	if !slices.Equal(kills(f.calls), kills(want)) || len(f.calls) != len(want) || !slices.Equal(f.calls[6:], want[6:]) {
		t.Fatalf("calls %q, want %q", f.calls, want)
	}

	// An app container's rule waits for the start sequence to end.
	f = &fakePod{seqDone: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	restarting.RunAll(ctx, f, restarting.Plan{Apps: []string{"a"}, Trigger: "a"})
	if !slices.Equal(f.calls, []string{"end"}) {
		t.Fatalf("calls %q: an app container's restart of all ran during the start sequence", f.calls)
	}
}

func TestInitRerunOver(t *testing.T) {
	running := api.PodStatus{Phase: api.PhaseRunning}
	done := api.ContainerState{Terminated: &api.StateTerminated{ExitCode: 0}}
	failed := api.ContainerState{Terminated: &api.StateTerminated{ExitCode: 1}}
	for _, tc := range []struct {
		name    string
		st      api.PodStatus
		cs      api.ContainerStatus
		sidecar bool
		want    bool
	}{
		{"an older attempt completed", running, api.ContainerStatus{RestartCount: 1, State: done}, false, false},
		{"the pod failed meanwhile", api.PodStatus{Phase: api.PhaseFailed}, api.ContainerStatus{RestartCount: 1}, false, true},
		{"the pod stops", api.PodStatus{Phase: api.PhaseRunning, Stopping: true}, api.ContainerStatus{RestartCount: 1}, false, true},
		{"completed", running, api.ContainerStatus{RestartCount: 2, State: done}, false, true},
		{"failed: the wait goes on (it restarts)", running, api.ContainerStatus{RestartCount: 2, State: failed}, false, false},
		{"a sidecar started", running, api.ContainerStatus{RestartCount: 2, Started: true}, true, true},
		{"a sidecar not started", running, api.ContainerStatus{RestartCount: 2}, true, false},
	} {
		if got := restarting.InitRerunOver(tc.st, tc.cs, 2, tc.sidecar); got != tc.want {
			t.Errorf("%s: InitRerunOver = %v, want %v", tc.name, got, tc.want)
		}
	}
}
