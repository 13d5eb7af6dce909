package worker

import (
	"fmt"

	. "github.com/podlife/podlife/podlife/internal/api"
)

// adoptAction is what an adopter does with one container of a pod whose start had finished and
// that was not stopped.
type adoptAction int

const (
	// actFollow: its current instance runs: its exit is watched, its probes resume.
	actFollow adoptAction = iota
	// actExited: its current instance exited while no manager ran: the exit is recorded (real
	// code and time, from the task) and the restart policy applies.
	actExited
	// actStart: a restart was cut between its create and its start: the start follows.
	actStart
	// actRestart: a restart was cut before its task existed and no earlier instance is left:
	// restart from the last recorded state.
	actRestart
	// actCompleted: it completed (a regular init container, an ephemeral one) and its task is
	// gone: nothing to do.
	actCompleted
	// actInterrupted: the start sequence had not created or started it: the pod is not resumed.
	actInterrupted
)

// foundInstance is what an adopter found of one instance of a container.
type foundInstance struct {
	attempt int
	state   taskState
}

// containerDecision is decideContainer's answer.
type containerDecision struct {
	action adoptAction
	// cur is the index of the current instance in the instances given (-1 if none is left).
	cur int
	// cut is how many of the newest instances to delete first: restarts cut before their task
	// existed (their containers exist, nothing else).
	cut int
	// why says what was interrupted (actInterrupted).
	why string
}

// decideContainer decides what adoption does with a container, from its instances (sorted by
// attempt) and the status its previous manager last wrote. kind is "init", "sidecar", "app" or
// "ephemeral".
func decideContainer(name, kind string, insts []foundInstance, last ContainerStatus) containerDecision {
	d := containerDecision{cur: -1}
	n := len(insts)
	for n > 0 && insts[n-1].state == taskNone && insts[n-1].attempt > 0 {
		n-- // a restart cut before its task existed
	}
	d.cut = len(insts) - n
	if n == 0 {
		completed := last.State.Terminated != nil && (kind == "init" && last.State.Terminated.ExitCode == 0 || kind == "ephemeral")
		switch {
		case d.cut > 0 && kind != "ephemeral":
			d.action = actRestart
		case completed:
			d.action = actCompleted
		default:
			d.action, d.why = actInterrupted, fmt.Sprintf("container %q was not created", name)
		}
		return d
	}
	d.cur = n - 1
	switch cur := insts[n-1]; cur.state {
	case taskRunning:
		d.action = actFollow
	case taskStopped:
		d.action = actExited
	case taskCreated:
		if cur.attempt > 0 {
			d.action = actStart
		} else {
			d.action, d.why = actInterrupted, fmt.Sprintf("container %q was not started", name)
		}
	default: // the first instance without its task
		d.action, d.why = actInterrupted, fmt.Sprintf("container %q has no task", name)
	}
	return d
}
