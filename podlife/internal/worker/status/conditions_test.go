package status

import (
	"testing"
	"time"

	. "github.com/podlife/podlife/podlife/internal/api"
)

func ready(c ContainerStatus) ContainerStatus { c.Ready = true; return c }

func cond(conds []PodCondition, t ConditionType) PodCondition {
	for _, c := range conds {
		if c.Type == t {
			return c
		}
	}
	return PodCondition{}
}

// Conditions keeps a condition's transition time while its status stays, takes now when it
// changes, and returns the times without modifying the ones it was given.
func TestConditionsTransitionTimes(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t1, t2 := t0.Add(time.Second), t0.Add(2*time.Second)
	in := Input{Phase: PhasePending, SandboxReady: true, Apps: []ContainerStatus{named("app", waiting())}}
	conds, times := Conditions(t0, in, nil)
	if len(conds) != 5 || len(times) != 5 {
		t.Fatalf("conditions %v, times %v: want 5 each", conds, times)
	}
	for _, c := range conds {
		if !c.LastTransitionTime.Equal(t0) {
			t.Errorf("%s: transition %v, want %v", c.Type, c.LastTransitionTime, t0)
		}
	}
	// Nothing changes at t1: every time stays t0, and the same times come back.
	conds1, times1 := Conditions(t1, in, times)
	for _, c := range conds1 {
		if !c.LastTransitionTime.Equal(t0) {
			t.Errorf("unchanged %s: transition %v, want %v", c.Type, c.LastTransitionTime, t0)
		}
	}
	// The app runs and is ready at t2: Ready and ContainersReady change, the others keep t0.
	in.Phase, in.Apps = PhaseRunning, []ContainerStatus{ready(named("app", running()))}
	conds2, times2 := Conditions(t2, in, times1)
	for _, c := range conds2 {
		want := t0
		if c.Type == PodReady || c.Type == ContainersReady {
			want = t2
		}
		if c.Status != ConditionTrue || !c.LastTransitionTime.Equal(want) {
			t.Errorf("%s: %s at %v, want True at %v", c.Type, c.Status, c.LastTransitionTime, want)
		}
	}
	if got := times1[PodReady]; got.Status != ConditionFalse || !got.At.Equal(t0) {
		t.Errorf("the times given were modified: %+v", got)
	}
	if got := times2[PodReady]; got.Status != ConditionTrue || !got.At.Equal(t2) {
		t.Errorf("returned PodReady %+v, want True at %v", got, t2)
	}
}

// The reasons and messages follow the kubelet's status/generate.go; custom conditions follow.
func TestConditionsReasons(t *testing.T) {
	now := time.Now()
	sidecars := map[string]bool{"side": true}
	custom := []PodCondition{{Type: "example.com/gate", Status: ConditionTrue}}
	for _, tc := range []struct {
		name            string
		in              Input
		init, ready     ConditionStatus
		initReason      string
		readyReason     string
		readyMsg        string
		containersReady ConditionStatus
	}{
		{"init pending", Input{Phase: PhasePending, SandboxReady: true,
			Inits: []ContainerStatus{named("side", running()), named("setup", waiting())}, Apps: []ContainerStatus{named("app", waiting())}, Sidecars: sidecars},
			ConditionFalse, ConditionFalse, "ContainersNotInitialized", "ContainersNotReady", "containers with unready status: [side app]", ConditionFalse},
		{"running, ready", Input{Phase: PhaseRunning, SandboxReady: true,
			Inits: []ContainerStatus{ready(started(named("side", running()))), named("setup", exited(0))}, Apps: []ContainerStatus{ready(named("app", running()))}, Sidecars: sidecars},
			ConditionTrue, ConditionTrue, "", "", "", ConditionTrue},
		{"gate not true", Input{Phase: PhaseRunning, SandboxReady: true, Apps: []ContainerStatus{ready(named("app", running()))}, GatesMessage: "gate g"},
			ConditionTrue, ConditionFalse, "", "ReadinessGatesNotReady", "gate g", ConditionTrue},
		{"succeeded", Input{Phase: PhaseSucceeded, Terminated: true, Apps: []ContainerStatus{named("app", exited(0))}},
			ConditionTrue, ConditionFalse, "PodCompleted", "PodCompleted", "", ConditionFalse},
		{"failed", Input{Phase: PhaseFailed, Terminated: true, Apps: []ContainerStatus{named("app", exited(1))}},
			ConditionTrue, ConditionFalse, "", "PodFailed", "", ConditionFalse},
	} {
		tc.in.Custom = custom
		conds, _ := Conditions(now, tc.in, nil)
		init, rd, cr := cond(conds, PodInitialized), cond(conds, PodReady), cond(conds, ContainersReady)
		if init.Status != tc.init || init.Reason != tc.initReason {
			t.Errorf("%s: Initialized %s %q, want %s %q", tc.name, init.Status, init.Reason, tc.init, tc.initReason)
		}
		if rd.Status != tc.ready || rd.Reason != tc.readyReason || rd.Message != tc.readyMsg {
			t.Errorf("%s: Ready %s %q %q, want %s %q %q", tc.name, rd.Status, rd.Reason, rd.Message, tc.ready, tc.readyReason, tc.readyMsg)
		}
		if cr.Status != tc.containersReady {
			t.Errorf("%s: ContainersReady %s, want %s", tc.name, cr.Status, tc.containersReady)
		}
		if rts := cond(conds, PodReadyToStartContainers).Status; rts != boolStatus(tc.in.SandboxReady && !tc.in.Terminated) {
			t.Errorf("%s: PodReadyToStartContainers %s", tc.name, rts)
		}
		if last := conds[len(conds)-1]; last.Type != custom[0].Type || conds[len(conds)-2].Type != PodScheduled {
			t.Errorf("%s: conditions end %v, want PodScheduled then the custom one", tc.name, conds[len(conds)-2:])
		}
	}
}

// A pod whose app containers ran is Initialized even if an init container is restarted later.
func TestConditionsInitializedOnceAppsRan(t *testing.T) {
	in := Input{Phase: PhaseRunning, Inits: []ContainerStatus{named("setup", restarting(1))}, Apps: []ContainerStatus{named("app", running())}}
	conds, _ := Conditions(time.Now(), in, nil)
	if c := cond(conds, PodInitialized); c.Status != ConditionTrue {
		t.Errorf("Initialized %s %q, want True", c.Status, c.Reason)
	}
	in.Apps = []ContainerStatus{named("app", waiting())}
	conds, _ = Conditions(time.Now(), in, nil)
	if c := cond(conds, PodInitialized); c.Status != ConditionFalse || c.Message != "containers with incomplete status: [setup]" {
		t.Errorf("Initialized %s %q, want False, setup incomplete", c.Status, c.Message)
	}
}
