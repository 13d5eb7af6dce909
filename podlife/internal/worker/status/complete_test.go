package status

import (
	"testing"

	. "github.com/podlife/podlife/podlife/internal/api"
)

// Completion keeps a pod whose app containers are done Running while a sidecar runs, and asks
// for its stop; it leaves every other phase alone.
func TestCompletion(t *testing.T) {
	cs := func(s ...ContainerStatus) []ContainerStatus { return s }
	sidecars := map[string]bool{"side": true}
	for _, tc := range []struct {
		name       string
		computed   Phase
		terminated bool
		inits      []ContainerStatus
		apps       []ContainerStatus
		want       Phase
		stop       bool
	}{
		{"running", PhaseRunning, false, cs(named("side", running())), cs(running()), PhaseRunning, false},
		{"no sidecar", PhaseSucceeded, false, cs(named("setup", exited(0))), cs(exited(0)), PhaseSucceeded, false},
		{"app done, sidecar runs", PhaseSucceeded, false, cs(named("side", running())), cs(exited(0)), PhaseRunning, true},
		{"app failed, sidecar runs", PhaseFailed, false, cs(named("side", running())), cs(exited(1)), PhaseRunning, true},
		{"app done, sidecar restarting", PhaseSucceeded, false, cs(named("side", restarting(1))), cs(exited(0)), PhaseSucceeded, true},
		{"init failed under Never, sidecar runs", PhaseFailed, false, cs(named("side", running()), named("setup", exited(1))), cs(waiting()), PhaseFailed, true},
		{"sidecar ended", PhaseSucceeded, false, cs(named("side", exited(0))), cs(exited(0)), PhaseSucceeded, false},
		{"terminated", PhaseSucceeded, true, cs(named("side", running())), cs(exited(0)), PhaseSucceeded, false},
	} {
		got, stop := Completion(tc.computed, tc.terminated, tc.inits, tc.apps, sidecars)
		if got != tc.want || stop != tc.stop {
			t.Errorf("%s: %s, stop %v; want %s, stop %v", tc.name, got, stop, tc.want, tc.stop)
		}
	}
}

// Unready names the unready sidecars and app containers, not the other init containers.
func TestUnready(t *testing.T) {
	inits := []ContainerStatus{named("side", running()), named("setup", exited(0)), ready(named("side2", running()))}
	apps := []ContainerStatus{named("a", running()), ready(named("b", running()))}
	got := Unready(inits, apps, map[string]bool{"side": true, "side2": true})
	if len(got) != 2 || got[0] != "side" || got[1] != "a" {
		t.Errorf("unready %v, want [side a]", got)
	}
	if got := Unready(nil, []ContainerStatus{ready(named("a", running()))}, nil); len(got) != 0 {
		t.Errorf("unready %v, want none", got)
	}
}
