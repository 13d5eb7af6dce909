package observe

import (
	"net/netip"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
)

// LabelStopSignal is the container's stop signal (a number) on each instance, as the worker
// writes it (podsandbox.LabelStopSignal; a worker test keeps them equal).
const LabelStopSignal = "podlife.io/stop-signal"

// Member is a container of the pod's spec as an adoption's plan sees it.
type Member struct {
	Name string
	// Kind is Decide's: "init", "sidecar" or "app".
	Kind string
}

// Plan is how the worker binds what an adopter found (Pod) to its state: the values it
// assigns, the instances it deletes and the exits it follows. It is Bind's answer; nothing
// is done yet.
type Plan struct {
	// PodIP is the pod's IP on its network (zero if none is recorded); NetAttached says an
	// attachment may exist.
	PodIP       netip.Addr
	NetAttached bool
	// Stopped: no task is left: the pod was stopped (or its start never got to its tasks).
	Stopped bool
	// Interrupted says why the start sequence cannot be resumed ("" if it finished).
	Interrupted string
	// Ephemerals are the ephemeral containers found (containers not in the spec), by name.
	Ephemerals []Ephemeral
	// Containers are the bindings of the members given, in their order, then of Ephemerals.
	Containers []Binding
}

// Ephemeral is an ephemeral container found: never restarted, followed until it exits,
// removed with the pod.
type Ephemeral struct {
	Name, Image string
}

// Binding is what a container of the pod is bound to.
type Binding struct {
	// Cut are instances to delete first: restarts cut before their task existed.
	Cut []Instance
	// Live are the instances whose containerd objects are kept, by attempt; Cur is the index
	// of the current one (-1 if none).
	Live []Instance
	Cur  int
	// Started: the current instance's process was started, at StartedAt.
	Started   bool
	StartedAt time.Time
	// State, LastState and RestartCount are the container's.
	State, LastState api.ContainerState
	RestartCount     int
	// StopSignal is the stop signal its previous manager recorded (SIGTERM if none): the
	// container's unless its image or spec tells one.
	StopSignal syscall.Signal
	// Follow: the current instance has a task, in state Task: its exits are followed.
	Follow bool
	Task   TaskState
	// Restart is the state to restart the container from: its restart was cut before its
	// task existed and no earlier instance is left (nil if none).
	Restart *api.StateTerminated
}

// MemberOf is the member of that name, an init container if init, a sidecar (a restartable
// init container) if sidecar, else an app container.
func MemberOf(name string, init, sidecar bool) Member {
	switch {
	case sidecar:
		return Member{Name: name, Kind: "sidecar"}
	case init:
		return Member{Name: name, Kind: "init"}
	}
	return Member{Name: name, Kind: "app"}
}

// Bind plans the binding of the pod found (o) to a worker whose spec has these members (its
// init containers, then its regular ones); hostNetwork and pause tell the spec's network and
// pause. now stands for the times nobody recorded.
func Bind(o *Pod, members []Member, hostNetwork, pause bool, now time.Time) *Plan {
	last := o.Last
	pl := &Plan{NetAttached: o.Sandbox.Network != "", Stopped: !o.AnyTask}
	if ip, err := netip.ParseAddr(o.Sandbox.IP); err == nil {
		pl.PodIP = ip
	}
	if !hostNetwork && o.Sandbox.Network != "attached" {
		pl.Interrupted = "the pod's network was not attached"
	}
	if (pause || o.Pause != nil) && (o.Pause == nil || o.Pause.Task == nil) && o.AnyTask {
		pl.Interrupted = "the pod's pause is missing"
	}
	byStatus := map[string]api.ContainerStatus{}
	for _, cs := range append(append(append([]api.ContainerStatus{}, last.InitContainerStatuses...), last.ContainerStatuses...), last.EphemeralContainerStatuses...) {
		byStatus[cs.Name] = cs
	}
	inSpec := map[string]bool{}
	for _, m := range members {
		inSpec[m.Name] = true
	}
	for name, seen := range o.Containers {
		if inSpec[name] || api.CheckName("container", name) != nil {
			continue
		}
		e := Ephemeral{Name: name}
		for _, f := range seen {
			if f.Labels[LabelKind] == KindEphemeral {
				e.Image = f.Image
			}
		}
		pl.Ephemerals = append(pl.Ephemerals, e)
	}
	sort.Slice(pl.Ephemerals, func(i, j int) bool { return pl.Ephemerals[i].Name < pl.Ephemerals[j].Name })
	for _, e := range pl.Ephemerals {
		members = append(members, Member{Name: e.Name, Kind: "ephemeral"})
	}
	for _, m := range members {
		b, why := bind(m, o.Containers[m.Name], byStatus[m.Name], pl.Stopped, now)
		if why != "" {
			pl.Interrupted = why
		}
		pl.Containers = append(pl.Containers, b)
	}
	return pl
}

// bind plans one container's binding to insts, its instances found (sorted by attempt), from
// last, its status as its previous manager last wrote it; why is set if its start was
// interrupted.
func bind(m Member, insts []Instance, last api.ContainerStatus, stopped bool, now time.Time) (b Binding, why string) {
	b = Binding{Cur: -1, StopSignal: StopSignal(insts), LastState: last.LastState}
	if stopped {
		b.State, b.RestartCount, b.Live = last.State, last.RestartCount, insts
		b.Cur = len(insts) - 1
		return b, ""
	}
	seen := make([]Seen, len(insts))
	for i, f := range insts {
		seen[i] = Seen{Attempt: f.Attempt, State: f.State}
	}
	d := Decide(m.Name, m.Kind, seen, last)
	b.Live, b.Cut = insts[:len(insts)-d.Cut], insts[len(insts)-d.Cut:]
	b.State = api.ContainerState{Waiting: &api.StateWaiting{Reason: api.ReasonContainerCreating}}
	switch d.Action {
	case Interrupted:
		why = d.Why
	case Completed:
		b.State = last.State
	case Restart:
		b.RestartCount = seen[len(seen)-1].Attempt - 1
		b.Restart = last.State.Terminated
		if b.Restart == nil {
			b.Restart = last.LastState.Terminated
		}
		if b.Restart == nil {
			b.Restart = &api.StateTerminated{ExitCode: -1, Reason: api.ReasonContainerStatusUnknown, FinishedAt: now}
		}
	}
	if d.Cur < 0 {
		return b, why
	}
	cur := b.Live[d.Cur]
	b.Cur, b.RestartCount = d.Cur, cur.Attempt
	if d.Action == Follow || d.Action == Exited {
		b.Started, b.StartedAt = true, now
		if last.ContainerID == "containerd://"+cur.ID {
			switch {
			case last.State.Running != nil:
				b.StartedAt = last.State.Running.StartedAt
			case last.State.Terminated != nil:
				b.StartedAt = last.State.Terminated.StartedAt
			}
		}
		b.State = api.ContainerState{Running: &api.StateRunning{StartedAt: b.StartedAt}}
	}
	b.Follow, b.Task = cur.State != TaskNone, cur.State
	return b, why
}

// StopSignal reads the stop signal the previous manager recorded on the newest of insts
// (SIGTERM if none).
func StopSignal(insts []Instance) syscall.Signal {
	sig := syscall.SIGTERM
	for _, f := range insts {
		if n, err := strconv.Atoi(f.Labels[LabelStopSignal]); err == nil && n > 0 {
			sig = syscall.Signal(n)
		}
	}
	return sig
}
