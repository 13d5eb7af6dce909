package status

import (
	"testing"
	"time"

	. "github.com/podlife/podlife/podlife/internal/api"
)

// A container's status across one instance: created waiting, running, started and ready by its
// probes, then exited; a regular init container is ready only once it completed, an ephemeral
// one never.
func TestContainerTransitions(t *testing.T) {
	c := NewContainer(true)
	if w := c.State.Waiting; w == nil || w.Reason != ReasonPodInitializing {
		t.Fatalf("new container of a pod with init containers: %+v, want waiting PodInitializing", c.State)
	}
	if c = NewContainer(false); c.State.Waiting.Reason != ReasonContainerCreating {
		t.Fatalf("new container: %+v, want waiting ContainerCreating", c.State)
	}
	if c.MarkStarted(false) {
		t.Fatal("MarkStarted of a container that does not run: want false")
	}
	c.SetReady(true)
	if c.Ready {
		t.Fatal("SetReady of a container that does not run made it ready")
	}
	at := time.Unix(100, 0)
	c.HookFailed = "earlier"
	c.Run(at)
	if r := c.State.Running; r == nil || !r.StartedAt.Equal(at) || c.HookFailed != "" {
		t.Fatalf("Run: %+v (hook failed %q), want running since %v and no hook failure", c.State, c.HookFailed, at)
	}
	if !c.MarkStarted(true) || !c.Started || c.Ready {
		t.Fatalf("MarkStarted with a readiness probe: started %v ready %v, want started, not ready", c.Started, c.Ready)
	}
	c.SetReady(true)
	if !c.Ready {
		t.Fatal("SetReady(true) of a started container: not ready")
	}
	st := c.Status("c", "img", "abc", Kind{})
	if st.ContainerID != "containerd://abc" || !st.Ready || !st.Started || st.Name != "c" || st.Image != "img" {
		t.Fatalf("Status: %+v", st)
	}
	if st := c.Status("c", "img", "", Kind{Init: true}); st.Ready || st.ContainerID != "" {
		t.Fatalf("a running regular init container: %+v, want not ready, no container ID", st)
	}
	if st := c.Status("c", "img", "abc", Kind{Ephemeral: true}); st.Ready || st.Started {
		t.Fatalf("an ephemeral container: %+v, want neither ready nor started", st)
	}
	term := &StateTerminated{ExitCode: 0}
	c.Exit(term, func() bool { t.Fatal("restarts asked without a hook failure"); return false })
	if c.State.Terminated != term || c.Ready || c.Started {
		t.Fatalf("Exit: %+v ready %v started %v", c.State, c.Ready, c.Started)
	}
	if st := c.Status("c", "img", "", Kind{Init: true}); !st.Ready {
		t.Fatal("a regular init container that completed: not ready")
	}
}

// After a failed postStart hook, an exit that a restart follows leaves the kubelet's waiting
// PostStartHookError with the exit as the last state; without a restart it shows the exit.
func TestContainerExitAfterPostStartFailure(t *testing.T) {
	for _, restarts := range []bool{true, false} {
		c := NewContainer(false)
		c.Run(time.Unix(1, 0))
		c.HookFailed = "hook failed"
		term := &StateTerminated{ExitCode: 137}
		c.Exit(term, func() bool { return restarts })
		if restarts {
			if w := c.State.Waiting; w == nil || w.Reason != ReasonPostStartHookError || w.Message != "hook failed" || c.LastState.Terminated != term {
				t.Errorf("restart follows: state %+v last %+v, want waiting PostStartHookError, last the exit", c.State, c.LastState)
			}
			continue
		}
		if c.State.Terminated != term || c.LastState.Terminated != nil {
			t.Errorf("no restart: state %+v last %+v, want terminated", c.State, c.LastState)
		}
	}
}
