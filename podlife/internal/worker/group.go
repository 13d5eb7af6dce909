package worker

import (
	"github.com/podlife/podlife/podlife/internal/worker/goroutines"
	"github.com/podlife/podlife/podlife/internal/worker/lifecycle"
)

// Names of the worker's goroutines: every one is started with spawn, in the pod's group
// (package goroutines), under one of these names, and awaited (see the package doc).
const (
	gLoop        = "loop"          // the owner loop (runLoop)
	gStart       = "start"         // the start sequence (run)
	gNetwork     = "network"       // the network attach in the start sequence
	gFailedStart = "failed-start"  // the removal of a pod whose start failed
	gStatus      = "status-writer" // persistStatus
	gDeadline    = "deadline"      // enforceDeadline
	gStorage     = "storage"       // enforceStorage
	gStop        = "stop"          // a stop (stopWith; the first one runs it, the others wait)
	gRemove      = "remove"        // the removal (Remove)
	gRestart     = "restart"       // a restart of a container (back-off, create, start)
	gRestartAll  = "restart-all"   // a restart of all the pod's containers
	gEphemeral   = "ephemeral"     // an ephemeral container's creation and start
	gExitWatch   = "exit-watch"    // an instance's exit watcher (watchExit)
	gPauseWatch  = "pause-watch"   // the pause's exit watcher (watchPause)
	gHook        = "hook"          // a lifecycle hook's handler (runHook)
	gProbes      = "probes"        // an instance's probe workers and their kills (probing.Set)
	gMemberExit  = "member-exit"   // a warm pool member's watch of a created process (WatchMember)
	gWarmEtc     = "warm-etc"      // a taken member's /etc files and hostname (ClaimMember)
	gRelabel     = "relabel"       // a taken member's containerd labels, after its start
	gRecordSync  = "record-sync"   // a taken member's first record's sync (warmmember.Member.WriteRecord)
	gPostStart   = "poststart"     // an adopted pod's interrupted postStart, failed
)

// spawn runs fn in a new goroutine of the pod's group, counted as what until it returns.
func (p *Worker) spawn(what string, fn func()) *goroutines.Member { return p.goroutines.Go(what, fn) }

// Goroutines returns the goroutines the worker started that still run, by name: live ones
// (awaited by Remove and AwaitAbandoned) and abandoned ones (user code that ignores its
// context). After Remove, live is empty.
func (p *Worker) Goroutines() (live, abandoned map[string]int) { return p.goroutines.Counts() }

// endsWithContext is lifecycle.EndsWithContext, for container.go's runHook.
var endsWithContext = lifecycle.EndsWithContext
