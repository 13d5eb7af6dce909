package ownerloop

import "github.com/podlife/podlife/podlife/internal/worker/goroutines"

// checkReentry makes every loop check that no closure running on it hands it another closure.
// Only test binaries set it (EnableReentryCheck), before any loop runs: the check parses stack
// traces.
var checkReentry = false

// EnableReentryCheck makes every loop panic when a closure running on it hands it another
// closure (it would wait for itself for ever). For test binaries: call it before any loop runs.
func EnableReentryCheck() { checkReentry = true }

// checkNotOnLoop panics, with EnableReentryCheck, if the caller runs on the loop.
func (l *Loop[S]) checkNotOnLoop() {
	if !checkReentry {
		return
	}
	if id := l.gid.Load(); id != 0 && id == goroutines.ID() {
		panic("podlife: a closure running on the pod's loop called do or update (it would wait for itself)")
	}
}
