package observe

import "github.com/podlife/podlife/podlife/internal/worker/record"

// Current is a container's current instance as an adopter's resume sees it.
type Current struct {
	// ID, Attempt and Task are the instance's (Task: what was found of its task).
	ID      string
	Attempt int
	Task    TaskState
	// Sup is the container's supervision record, as the previous manager left it.
	Sup record.ContainerSupervision
	// PostStart, StartupProbe: the container has a postStart hook, a startup probe.
	PostStart, StartupProbe bool
	// Ephemeral: an ephemeral container.
	Ephemeral bool
	// Interrupted: the pod's start sequence was interrupted: it is not resumed.
	Interrupted bool
	// WatchOnly: the pod is adopted to stop it (or to finish its stop): only exits are followed.
	WatchOnly bool
}

// Resume is what the resume of a supervised pod does with a container's current instance, in
// this order.
type Resume struct {
	// MarkPostStartFailed: the instance exited while its postStart hook ran when the previous
	// manager died: the hook is recorded as failed before its exit is, so that its restart
	// shows the hook's failure.
	MarkPostStartFailed bool
	// Attach: the output of an interactive ephemeral container is copied again to its log and
	// clients.
	Attach bool
	// Watch: its exit is followed.
	Watch bool
	// FailPostStart: it runs, its postStart hook cut by the previous manager's death: the hook
	// failed (the container is killed as a failed postStart's is).
	FailPostStart bool
	// Probes: its probes start, its startup probe passed already if StartupPassed.
	Probes, StartupPassed bool
	// Start: a restart was cut between its create and its start: the start follows.
	Start bool
}

// ResumeOf plans the resume of a container's current instance c.
func ResumeOf(c Current) Resume {
	var r Resume
	switch c.Task {
	case TaskRunning, TaskStopped:
		if c.WatchOnly {
			return Resume{Watch: true}
		}
		cut := c.Sup.PostStart == c.ID && c.PostStart
		r.MarkPostStartFailed = cut && c.Task == TaskStopped
		r.Attach = c.Ephemeral && c.Task == TaskRunning
		r.Watch = true
		r.FailPostStart = cut && c.Task == TaskRunning
		r.Probes = !r.FailPostStart && c.Task == TaskRunning && !c.Interrupted
		r.StartupPassed = r.Probes && (!c.StartupProbe || c.Sup.Started == c.ID)
	case TaskCreated:
		r.Start = c.Attempt > 0 && !c.Interrupted && !c.WatchOnly
	}
	return r
}

// PodResume is what the resume of a bound pod does as a whole, besides its containers' current
// instances (ResumeOf).
type PodResume struct {
	// SandboxReady and Stopping are the pod's state once bound (Stopping: no restart, no probe,
	// no hook: a stop follows).
	SandboxReady, Stopping bool
	// FinishStop: a stop the previous manager began is finished (never undone), with what is
	// left of its grace period (see record.StopIntent).
	FinishStop bool
	// Failed is the message of a pod whose start sequence was interrupted ("" if none): it
	// fails with reason StartInterrupted and is stopped.
	Failed string
	// Why ends the Adopted event's message.
	Why string
}

// ResumePodOf plans the resume of the pod bound as pl, its previous manager's stop intent
// (nil if none) recorded; forStop adopts it only to stop or remove it.
func ResumePodOf(pl *Plan, intent *record.StopIntent, forStop bool) PodResume {
	r := PodResume{SandboxReady: !pl.Stopped && pl.Interrupted == "", FinishStop: intent != nil && !pl.Stopped && !forStop}
	r.Stopping = pl.Stopped || forStop || r.FinishStop
	if pl.Interrupted != "" && !r.Stopping {
		r.Failed = "The pod's start sequence was interrupted by its previous manager's death (" + pl.Interrupted + "): it is not resumed; remove the pod"
	}
	switch {
	case forStop:
		r.Why = ", to stop it"
	case intent != nil:
		r.Why = ", to finish the stop it began"
	}
	return r
}
