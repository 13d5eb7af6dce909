package status

import (
	"testing"
	"time"

	. "github.com/podlife/podlife/podlife/internal/api"
)

func running() ContainerStatus {
	return ContainerStatus{State: ContainerState{Running: &StateRunning{StartedAt: time.Now()}}}
}
func exited(code int) ContainerStatus {
	return ContainerStatus{State: ContainerState{Terminated: &StateTerminated{ExitCode: code}}}
}
func restarting(lastCode int) ContainerStatus {
	return ContainerStatus{State: ContainerState{Waiting: &StateWaiting{Reason: ReasonCrashLoopBackOff}},
		LastState: ContainerState{Terminated: &StateTerminated{ExitCode: lastCode}}}
}
func named(name string, c ContainerStatus) ContainerStatus { c.Name = name; return c }
func started(c ContainerStatus) ContainerStatus            { c.Started = true; return c }
func waiting() ContainerStatus {
	return ContainerStatus{State: ContainerState{Waiting: &StateWaiting{Reason: ReasonContainerCreating}}}
}

// ComputePhase follows the kubelet's getPhase table.
func TestComputePhase(t *testing.T) {
	cs := func(s ...ContainerStatus) []ContainerStatus { return s }
	for _, tc := range []struct {
		name       string
		policy     RestartPolicy
		terminated bool
		inits      []ContainerStatus
		apps       []ContainerStatus
		want       Phase
	}{
		{"all waiting", RestartAlways, false, nil, cs(waiting(), waiting()), PhasePending},
		{"one waiting", RestartAlways, false, nil, cs(running(), waiting()), PhasePending},
		{"all running", RestartAlways, false, nil, cs(running(), running()), PhaseRunning},
		{"running and exited", RestartNever, false, nil, cs(running(), exited(1)), PhaseRunning},
		{"exited 0, Always", RestartAlways, false, nil, cs(exited(0)), PhaseRunning},
		{"exited 0, Never", RestartNever, false, nil, cs(exited(0), exited(0)), PhaseSucceeded},
		{"exited 1, Never", RestartNever, false, nil, cs(exited(0), exited(1)), PhaseFailed},
		{"exited 1, OnFailure", RestartOnFailure, false, nil, cs(exited(1)), PhaseRunning},
		{"exited 0, OnFailure", RestartOnFailure, false, nil, cs(exited(0)), PhaseSucceeded},
		{"stopped clean", RestartAlways, true, nil, cs(exited(0), exited(0)), PhaseSucceeded},
		{"stopped killed", RestartAlways, true, nil, cs(exited(0), exited(137)), PhaseFailed},
		{"stopped never started", RestartAlways, true, nil, cs(exited(0), waiting()), PhaseFailed},
		{"init pending", RestartAlways, false, cs(running()), cs(waiting()), PhasePending},
		{"init failed, Never", RestartNever, false, cs(exited(1)), cs(waiting()), PhaseFailed},
		{"init failed, Always", RestartAlways, false, cs(exited(1)), cs(waiting()), PhasePending},
		{"init done", RestartAlways, false, cs(exited(0)), cs(running()), PhaseRunning},
		{"init failed, restart pending, Never", RestartNever, false, cs(restarting(1)), cs(waiting()), PhaseFailed},
		{"sidecar exited 1, Never", RestartNever, false, cs(named("sidecar", exited(1)), waiting()), cs(waiting()), PhasePending},
		{"sidecar restarting, app done, Never", RestartNever, false, cs(named("sidecar", restarting(1))), cs(exited(0)), PhaseSucceeded},
		{"sidecar not started", RestartNever, false, cs(named("sidecar", running())), cs(waiting()), PhasePending},
		{"sidecar started", RestartNever, false, cs(named("sidecar", started(running()))), cs(running()), PhaseRunning},
	} {
		sidecars := map[string]bool{"sidecar": true}
		if got := ComputePhase(ByPolicy(tc.policy), tc.terminated, tc.inits, tc.apps, sidecars); got != tc.want {
			t.Errorf("%s: phase %s, want %s", tc.name, got, tc.want)
		}
	}
}

// ComputePhase follows getPhase with ContainerRestartRules: a container that will restart keeps
// the pod Running whatever the pod's policy; one that will not counts as done.
func TestComputePhaseRestartRules(t *testing.T) {
	cs := func(s ...ContainerStatus) []ContainerStatus { return s }
	rule42 := []ContainerRestartRule{{Action: RestartRuleActionRestart,
		ExitCodes: &ContainerRestartRuleOnExitCodes{Operator: RestartRuleOpIn, Values: []int32{42}}}}
	specs := map[string]ContainerSpec{
		"never":  {RestartPolicy: RestartNever},
		"always": {RestartPolicy: RestartAlways},
		"rule":   {RestartPolicy: RestartNever, RestartPolicyRules: rule42},
		"onfail": {RestartPolicy: RestartOnFailure},
	}
	for _, tc := range []struct {
		name   string
		policy RestartPolicy
		inits  []ContainerStatus
		apps   []ContainerStatus
		want   Phase
	}{
		{"Never container in Always pod, exited 1", RestartAlways, nil, cs(named("never", exited(1))), PhaseFailed},
		{"Never container in Always pod, exited 0", RestartAlways, nil, cs(named("never", exited(0))), PhaseSucceeded},
		{"Never container exited, other restarting", RestartAlways, nil, cs(named("never", exited(0)), named("x", restarting(1))), PhaseRunning},
		{"Always container in Never pod", RestartNever, nil, cs(named("always", exited(0))), PhaseRunning},
		{"rule matches in Never pod", RestartNever, nil, cs(named("rule", exited(42))), PhaseRunning},
		{"rule matched, restart pending", RestartNever, nil, cs(named("rule", restarting(42))), PhaseRunning},
		{"rule does not match", RestartNever, nil, cs(named("rule", exited(1))), PhaseFailed},
		{"init Never in Always pod failed", RestartAlways, cs(named("never", exited(1))), cs(waiting()), PhaseFailed},
		{"init OnFailure in Never pod failed", RestartNever, cs(named("onfail", restarting(1))), cs(waiting()), PhasePending},
		{"init rule in Never pod", RestartNever, cs(named("rule", exited(42))), cs(waiting()), PhasePending},
	} {
		restarts := func(name string, code int) bool {
			c := specs[name]
			return RestartsAfter(&c, tc.policy, code)
		}
		if got := ComputePhase(restarts, false, tc.inits, tc.apps, nil); got != tc.want {
			t.Errorf("%s: phase %s, want %s", tc.name, got, tc.want)
		}
	}
}
