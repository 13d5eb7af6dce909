package observe

import (
	"net/netip"
	"syscall"
	"testing"
	"time"

	. "github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/sandbox"
)

// An adoption's plan binds what was found to the worker's state: the network's record, the
// ephemeral containers found, each container's current instance with its state, the restarts
// cut before their task existed (deleted, then restarted from the last recorded state), the
// stop signal the previous manager recorded, and a stopped pod's statuses kept as they were.
func TestBind(t *testing.T) {
	now := time.Unix(1000, 0)
	started := time.Unix(500, 0)
	inst := func(name string, attempt int, st TaskState, labels map[string]string) Instance {
		return Instance{ID: name + string(rune('0'+attempt)), Name: name, Attempt: attempt, State: st, Labels: labels}
	}
	members := []Member{{"init", "init"}, {"app", "app"}}
	running := func(id string) ContainerStatus {
		return ContainerStatus{ContainerID: "containerd://" + id, State: ContainerState{Running: &StateRunning{StartedAt: started}}}
	}
	o := &Pod{
		AnyTask: true,
		Sandbox: sandbox.Record{IP: "10.0.0.7", Network: "attached"},
		Last: PodStatus{
			InitContainerStatuses: []ContainerStatus{{Name: "init", State: ContainerState{Terminated: &StateTerminated{ExitCode: 0}}}},
			ContainerStatuses:     []ContainerStatus{func() ContainerStatus { s := running("app1"); s.Name = "app"; return s }()},
		},
		Containers: map[string][]Instance{
			"app": {inst("app", 1, TaskRunning, map[string]string{LabelStopSignal: "10"}), inst("app", 2, TaskNone, nil)},
			"dbg": {inst("dbg", 0, TaskStopped, map[string]string{LabelKind: KindEphemeral})},
			"BAD": {inst("BAD", 0, TaskStopped, nil)},
		},
	}
	o.Containers["dbg"][0].Image = "busybox"
	pl := Bind(o, members, false, false, now)
	if pl.PodIP != netip.MustParseAddr("10.0.0.7") || !pl.NetAttached || pl.Stopped || pl.Interrupted != "" {
		t.Fatalf("plan %+v: want the IP, attached, not stopped, not interrupted", pl)
	}
	if len(pl.Ephemerals) != 1 || pl.Ephemerals[0] != (Ephemeral{"dbg", "busybox"}) || len(pl.Containers) != 3 {
		t.Fatalf("ephemerals %v, %d bindings: want dbg (busybox) only, 3 bindings", pl.Ephemerals, len(pl.Containers))
	}
	if b := pl.Containers[0]; b.Cur != -1 || b.State.Terminated == nil || b.StopSignal != syscall.SIGTERM {
		t.Errorf("init: %+v, want completed, no instance, SIGTERM", b)
	}
	b := pl.Containers[1]
	if len(b.Cut) != 1 || b.Cut[0].Attempt != 2 || len(b.Live) != 1 || b.Cur != 0 || !b.Follow || b.Task != TaskRunning ||
		!b.Started || !b.StartedAt.Equal(started) || b.RestartCount != 1 || b.StopSignal != syscall.SIGUSR1 || b.Restart != nil {
		t.Errorf("app: %+v, want attempt 2 cut, attempt 1 followed since its recorded start, stop signal 10", b)
	}
	if b := pl.Containers[2]; b.Cur != 0 || !b.Follow || b.Task != TaskStopped || !b.StartedAt.Equal(now) {
		t.Errorf("ephemeral: %+v, want its exit followed, started now (no status)", b)
	}

	// A restart cut before its task with nothing earlier left: restarted from the last state.
	o.Containers["app"] = []Instance{inst("app", 1, TaskNone, nil)}
	b = Bind(o, members, false, false, now).Containers[1]
	if len(b.Cut) != 1 || b.Cur != -1 || b.RestartCount != 0 || b.Restart == nil || b.Restart.Reason != ReasonContainerStatusUnknown {
		t.Errorf("cut restart: %+v, want it cut and restarted from an unknown state", b)
	}

	// A pause expected but missing, the network not attached: the start was interrupted.
	o.Sandbox.Network = "intent"
	if pl := Bind(o, members, false, true, now); pl.Interrupted != "the pod's pause is missing" || !pl.NetAttached {
		t.Errorf("interrupted %q (attached %v), want the pause missing", pl.Interrupted, pl.NetAttached)
	}

	// Stopped: the statuses as recorded, the newest instance current, nothing followed.
	o.AnyTask = false
	o.Containers["app"] = []Instance{inst("app", 0, TaskNone, nil), inst("app", 1, TaskNone, nil)}
	o.Last.ContainerStatuses[0].RestartCount = 1
	b = Bind(o, members, false, false, now).Containers[1]
	if len(b.Cut) != 0 || len(b.Live) != 2 || b.Cur != 1 || b.Follow || b.RestartCount != 1 || b.State.Running == nil {
		t.Errorf("stopped: %+v, want both instances kept, the newest current, the recorded state", b)
	}
}
