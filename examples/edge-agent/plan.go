package main

import (
	"slices"
	"time"

	"github.com/podlife/podlife/podlife"
)

// desiredPod is a pod the manifest directory asks for.
type desiredPod struct {
	// Name is the pod's name on the host (the manifest's name, suffixed with the node name).
	Name string
	// File is the manifest's file name in the directory.
	File string
	// Hash identifies the manifest's content (see manifestHash): a change replaces the pod.
	Hash string
	// Spec is the pod as podlife runs it.
	Spec podlife.PodSpec
}

// podState is what the agent knows of a pod it owns.
type podState string

const (
	// stateManaged: this agent runs (or adopted) the pod and supervises it.
	stateManaged podState = "Managed"
	// stateFound: the pod was found at the agent's start and is not adopted yet.
	stateFound podState = "Found"
	// stateUnmanaged: the pod runs, but this agent could not adopt it (another live process
	// manages it, or adoption failed); it is left alone until its manifest changes or goes.
	stateUnmanaged podState = "Unmanaged"
	// stateFailed: the last start failed; it is tried again at RetryAt.
	stateFailed podState = "Failed"
)

// actualPod is a pod the agent owns, as the planner sees it.
type actualPod struct {
	Name string
	// File and Hash are those of the manifest the pod was started from; during an operation,
	// those of the manifest it works towards.
	File, Hash string
	State      podState
	// Op is the operation in flight (run, replace, adopt, remove), "" if none.
	Op actionKind
	// Cancelled is true once the operation in flight was cancelled.
	Cancelled bool
	// RetryAt is when a Failed pod is tried again.
	RetryAt time.Time
}

// actionKind is what the agent does to one pod.
type actionKind string

const (
	actRun     actionKind = "run"     // start a pod that does not run
	actReplace actionKind = "replace" // stop (with grace) and remove the pod, then run the new spec
	actRemove  actionKind = "remove"  // stop (with grace) and remove the pod
	actAdopt   actionKind = "adopt"   // take over a pod found running, without restarting it
	actCancel  actionKind = "cancel"  // end the operation in flight: its target is outdated
)

// action is one step of a plan.
type action struct {
	Kind actionKind
	Name string
	// Desired is the pod to run or adopt (run, replace, adopt); nil otherwise.
	Desired *desiredPod
}

// plan compares the pods the manifests ask for with those the agent owns and returns what to
// do, sorted by pod name. It is pure: the agent carries the actions out.
//
//   - a desired pod the agent does not own is run;
//   - an owned pod whose manifest changed is replaced, one found at start is adopted, and one
//     whose start failed is run again once its back-off has passed;
//   - an owned pod no manifest asks for is removed, unless its manifest is still there but
//     fails to load (broken): then the pod last started from it is kept as it is;
//   - a pod with an operation in flight is left to it, unless the operation's target is
//     outdated: then it is cancelled (once), and the next plan starts over from its outcome.
//     A removal is never cancelled: it ends within the pod's grace period, and a pod asked
//     for again is run once it is done.
func plan(now time.Time, desired map[string]desiredPod, broken map[string]bool, actual map[string]actualPod) []action {
	names := make([]string, 0, len(desired)+len(actual))
	for n := range desired {
		names = append(names, n)
	}
	for n := range actual {
		if _, ok := desired[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)

	var out []action
	for _, n := range names {
		d, want := desired[n]
		a, have := actual[n]
		switch {
		case want && !have:
			out = append(out, action{Kind: actRun, Name: n, Desired: &d})
		case a.Op == actRemove || a.Cancelled:
			// Left to finish.
		case !want && broken[a.File]:
			// Last known good: a manifest being edited, or broken, does not stop its pods.
		case !want && a.Op != "":
			out = append(out, action{Kind: actCancel, Name: n})
		case !want:
			out = append(out, action{Kind: actRemove, Name: n})
		case a.Op != "":
			if a.Hash != d.Hash {
				out = append(out, action{Kind: actCancel, Name: n})
			}
		case a.Hash != d.Hash:
			out = append(out, action{Kind: actReplace, Name: n, Desired: &d})
		case a.State == stateFound:
			out = append(out, action{Kind: actAdopt, Name: n, Desired: &d})
		case a.State == stateFailed && !now.Before(a.RetryAt):
			out = append(out, action{Kind: actRun, Name: n, Desired: &d})
		}
	}
	return out
}
