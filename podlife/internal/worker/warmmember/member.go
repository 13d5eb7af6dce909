package warmmember

import (
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/eventbus"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/podsandbox"
	"github.com/podlife/podlife/podlife/internal/worker/podstart"
)

// Member is a warm pool member's own state, which its pod worker holds from the member's
// making (before its loop starts) on: what the member's sequences (Make, Claim, Start, the
// first record's WriteRecord) keep between their steps.
type Member struct {
	id      string
	created time.Time
	env     Env
	dead    atomic.Bool // a created process is gone (see ForwardExit)
	trace   trace       // its start once taken, step by step
	// taken is the pod it became (Claim), for Start.
	taken Identity
	// syncLater: the pod's first record is synced while its processes start, not before
	// (set by Claim; see WriteRecord); recordSynced then gives the sync's result.
	syncLater    bool
	recordSynced chan error
	// etcDone is closed once Claim's rewrite of the /etc files and the hostname is done:
	// the start sequence waits for it before any process starts.
	etcDone chan struct{}
}

// Env is what a member's sequences use besides its pod worker: plain values of the worker
// and its Host, fixed when the member is made.
type Env struct {
	StateDir string
	Tasks    tasks.Runtime       // the image check of a take (checkImageDigest)
	Sandbox  *podsandbox.Sandbox // the member's sandbox, made by Make, moved by Claim
	Spec     api.PodSpec         // the member's spec: the pool's template, named after the member
	Log      *slog.Logger        // the member's log
	HostLog  *slog.Logger        // the Runtime's: a taken member logs as its pod
	Now      func() time.Time    // the Runtime's clock: a taken member's start time
}

// New returns the state of the member named id (its directory's name under
// <state dir>/pool), made at created.
func New(id string, created time.Time, env Env) *Member {
	return &Member{id: id, created: created, env: env}
}

// ForwardExit waits for the exit of a created process of the member (orig, which the worker's
// exit watcher no longer reads), passes it on to fwd (the exit watcher's, once the member is
// taken), marks the member dead (a Claim then fails) and calls onDead.
func (m *Member) ForwardExit(orig <-chan ctrd.ExitStatus, fwd chan<- ctrd.ExitStatus, onDead func()) {
	st := <-orig
	fwd <- st
	m.dead.Store(true)
	onDead()
}

// errStale is Claim's error for a member that cannot be handed out.
var errStale = errors.New("warm pool member stale")

// Pod is what a member's sequences need of its pod worker, which implements it: the steps
// that read or write the pod's state (on its loop, or before anything else sees the member)
// and the worker's group of goroutines. Values cross it as snapshots; the state stays the
// worker's.
type Pod interface {
	// Go runs fn in a goroutine of the worker's group (awaited as its others), named after g.
	Go(g Goroutine, fn func())
	// Containers is a snapshot of the pod's init and app containers, in the spec's order, and
	// of its pause's containerd container (nil if none), taken on the loop; false once the
	// loop ended.
	Containers() (cs []Container, pause tasks.Container, ok bool)
	// Steps are the steps of the pod's cold start (podstart.Run's), as the pod is now: Make
	// runs those up to the processes, Start the processes'.
	Steps() podstart.Pod
	// Become makes the member the pod of id, on its loop.
	Become(id Identity)
}

// Goroutine names a goroutine a member's sequences start in the worker's group (Pod.Go).
type Goroutine int

const (
	GoEtc        Goroutine = iota // a taken member's /etc files and hostname (Claim)
	GoRecordSync                  // a taken member's first record's sync (WriteRecord)
	GoRelabel                     // a taken member's containerd labels, after its start (Start)
)

// Container is a snapshot of one of a member's containers (Pod.Containers).
type Container struct {
	Name    string
	Image   string          // its image's name
	ImageID string          // the image it was created from
	Ctr     tasks.Container // its current containerd container, nil if none
	Task    bool            // its current instance's task is created
	Started []time.Time     // when each live instance's Task.Start returned (zero: not yet)
}

// Reissue returns a taken member's event bus, child of parent (the Runtime's), with the
// member's events (made: Pulled, Created), with their times, as the pod's: its
// history tells what was made ahead of time.
func Reissue(made []api.Event, parent *eventbus.Bus, pod string) *eventbus.Bus {
	b := eventbus.New(parent)
	for _, e := range made {
		e.Pod = pod
		b.Publish(e)
	}
	return b
}

// Identity is what a taken member becomes (Pod.Become): Run's pod.
type Identity struct {
	Spec, Recorded api.PodSpec // admitted; the name reserved
	Log            *slog.Logger
	Dir            string              // the pod's directory: the member's, moved
	Rebase         func(string) string // a path under the member's directory, under Dir
	Now            time.Time           // its start time
	Release        func()              // the pods' lock, to release once pod.json is written
}
