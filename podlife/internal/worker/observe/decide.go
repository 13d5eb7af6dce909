package observe

import (
	"fmt"

	"github.com/podlife/podlife/podlife/internal/api"
)

// Action is what an adopter does with one container of a pod whose start had finished and
// that was not stopped.
type Action int

const (
	// Follow: its current instance runs: its exit is watched, its probes resume.
	Follow Action = iota
	// Exited: its current instance exited while no manager ran: the exit is recorded (real
	// code and time, from the task) and the restart policy applies.
	Exited
	// Start: a restart was cut between its create and its start: the start follows.
	Start
	// Restart: a restart was cut before its task existed and no earlier instance is left:
	// restart from the last recorded state.
	Restart
	// Completed: it completed (a regular init container, an ephemeral one) and its task is
	// gone: nothing to do.
	Completed
	// Interrupted: the start sequence had not created or started it: the pod is not resumed.
	Interrupted
)

// Seen is what an adopter found of one instance of a container.
type Seen struct {
	Attempt int
	State   TaskState
}

// Decision is Decide's answer.
type Decision struct {
	Action Action
	// Cur is the index of the current instance in the instances given (-1 if none is left).
	Cur int
	// Cut is how many of the newest instances to delete first: restarts cut before their task
	// existed (their containers exist, nothing else).
	Cut int
	// Why says what was interrupted (Interrupted).
	Why string
}

// Decide decides what adoption does with a container, from its instances (sorted by attempt)
// and the status its previous manager last wrote. kind is "init", "sidecar", "app" or
// "ephemeral".
func Decide(name, kind string, insts []Seen, last api.ContainerStatus) Decision {
	d := Decision{Cur: -1}
	n := len(insts)
	for n > 0 && insts[n-1].State == TaskNone && insts[n-1].Attempt > 0 {
		n-- // a restart cut before its task existed
	}
	d.Cut = len(insts) - n
	if n == 0 {
		completed := last.State.Terminated != nil && (kind == "init" && last.State.Terminated.ExitCode == 0 || kind == "ephemeral")
		switch {
		case d.Cut > 0 && kind != "ephemeral":
			d.Action = Restart
		case completed:
			d.Action = Completed
		default:
			d.Action, d.Why = Interrupted, fmt.Sprintf("container %q was not created", name)
		}
		return d
	}
	d.Cur = n - 1
	switch cur := insts[n-1]; cur.State {
	case TaskRunning:
		d.Action = Follow
	case TaskStopped:
		d.Action = Exited
	case TaskCreated:
		if cur.Attempt > 0 {
			d.Action = Start
		} else {
			d.Action, d.Why = Interrupted, fmt.Sprintf("container %q was not started", name)
		}
	default: // the first instance without its task
		d.Action, d.Why = Interrupted, fmt.Sprintf("container %q has no task", name)
	}
	return d
}
