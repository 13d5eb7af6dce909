package podsandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/podlife/podlife/podlife/internal/shimgroup"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// Shim is the pod's choice of containerd runc shims (one per pod, one per container, or one
// shared with other pods: Config.Shims) and the start of the pod's shim by its first NewTask.
// Its choice is made when the pod is made (NewShim, then AdoptGroup and SetPause for an
// adopted pod) before anything reads it; its start hand-over (Start) is guarded by its own
// lock, which guards nothing else.
type Shim struct {
	tasks        ShimTasks
	groups       *shimgroup.Groups
	address      string
	namespace    string
	uid          string
	perContainer bool
	shared       string // the shim group shared with other pods (Config.Shims ShimShared)
	owner        string // the ID of the owner's first instance (see Group)
	pause        string // the ID of the pod's pause, "" if it has none

	ready     chan struct{} // closed once the pod's shim answers
	readyOnce sync.Once

	mu      sync.Mutex
	starter Starter // starts the pod's shim: the owner, or another if it cannot be created (handOver)
}

// ShimTasks is what the shim choice asks of containerd (tasks.Runtime has it).
type ShimTasks interface {
	ShimAnswers(group string) bool
	RemoveStaleShim(group string, log *slog.Logger)
}

// Starter is a container of the pod that may start its shim.
type Starter interface {
	// Prepared is closed once the container's preparation ended: its NewTask is under way,
	// or it failed before.
	Prepared() <-chan struct{}
	// ConfigFailed reports, once Prepared is closed, whether its preparation failed only
	// for its settings (ErrCreateContainerConfig: the pod stays, its other containers start).
	ConfigFailed() bool
	// Name is the container's name.
	Name() string
}

// ShimConfig is how the Runtime shares shims.
type ShimConfig struct {
	Tasks              ShimTasks
	Groups             *shimgroup.Groups
	Address, Namespace string // containerd's socket and namespace
	// PerContainer and Shared are Config.Shims ShimPerContainer and ShimShared.
	PerContainer, Shared bool
}

// NewShim is the shim choice of pod uid, whose containers' shim the container owner starts
// (ownerID the ID of its first instance); pauseID is the ID of its pause, "" if it has none.
// With shared shims it takes a place in a shared group (which RemoveStale gives back).
func NewShim(c ShimConfig, uid string, owner Starter, ownerID, pauseID string) *Shim {
	s := &Shim{tasks: c.Tasks, groups: c.Groups, address: c.Address, namespace: c.Namespace, uid: uid,
		perContainer: c.PerContainer, owner: ownerID, pause: pauseID, ready: make(chan struct{}), starter: owner}
	if c.Shared && pauseID == "" {
		s.shared = c.Groups.Acquire(uid, ownerID)
	}
	return s
}

// SetPause records the ID of the pod's pause, found by an adopter.
func (s *Shim) SetPause(id string) { s.pause = id }

// AdoptGroup takes the recorded shim group of an adopted pod without a pause: the shared
// group it joins again, or its owner's ID. It reports whether the group is its owner's ID.
func (s *Shim) AdoptGroup(group string) (owner bool) {
	if s.shared != "" {
		s.shared = s.groups.Adopt(group, s.uid)
		return false
	}
	s.owner = group
	return true
}

// Shared reports whether the pod's containers use a shim shared with other pods.
func (s *Shim) Shared() bool { return s.shared != "" && s.pause == "" }

// Group is the runc shim group of the pod's containers ("" for one shim per container): the
// ID of the pod's pause if it has one, else of its first container, which starts the shim.
// containerd's runc shim removes, when it exits, the socket derived from the ID of the task
// that started it; a group ID of its own would leave a stale socket in /run/containerd/s for
// every pod (the CRI plugin groups by its sandbox's ID for the same reason).
func (s *Shim) Group() string {
	switch {
	case s.Shared():
		return s.shared // ShimShared
	case s.perContainer:
		return ""
	case s.pause != "":
		return s.pause // created first, deleted last
	}
	return s.owner
}

// MarkReady records that the pod's shim answers (an adopted pod's does, if it has one).
func (s *Shim) MarkReady() { s.readyOnce.Do(func() { close(s.ready) }) }

// Start runs fn, the NewTask of container c. With one shim per pod, the owner's NewTask
// starts the shim, and the other NewTasks wait until the shim answers on its socket: concurrent
// first starts race in containerd's runc shim manager for the group's socket, and the loser's
// shim would be left running with nothing to serve. Once the shim answers (the state in which
// containerd reuses a group's shim, as the CRI plugin does for every container after the
// sandbox), NewTasks run in parallel. If the socket is never seen, the others go when the
// owner's NewTask has succeeded.
//
// A waiter never waits for a shim that will not come: it returns ctx's error when ctx ends (a
// stop, or a sibling's setup failure), and ErrShimAborted when the owner's preparation ended
// without starting the shim (its pull, image config or create failed). An owner that cannot be
// created with its settings (ErrCreateContainerConfig) does not fail the pod: the first waiter
// starts the shim instead (handOver).
func (s *Shim) Start(ctx context.Context, log *slog.Logger, c Starter, fn func() error) error {
	if s.Shared() {
		g := s.shared
		return s.groups.Start(ctx, g, func() bool { return s.tasks.ShimAnswers(g) }, fn)
	}
	if s.Group() == "" || s.pause != "" {
		return fn() // one shim each, or the pause's task has started the pod's shim
	}
	for starter := s.starterNow(); c != starter; starter = s.starterNow() {
		select {
		case <-s.ready:
			return fn()
		case <-starter.Prepared():
			// The starter is done preparing: either the shim is up (both channels may be
			// ready at once) or it will never be started by it.
			select {
			case <-s.ready:
				return fn()
			default:
			}
			if !s.handOver(starter, c) {
				return fmt.Errorf("container %q: %w", starter.Name(), ErrShimAborted)
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	done := make(chan error, 1)
	go func() { done <- fn() }()
	group := s.Group()
	log.Debug("starting the pod's shim", "container", c.Name(), "socket", s.Socket())
	began := time.Now()
	poll := time.NewTimer(shimPoll(0))
	defer poll.Stop()
	for {
		select {
		case err := <-done:
			if err == nil {
				s.MarkReady()
			}
			return err
		case <-poll.C:
			if s.tasks.ShimAnswers(group) {
				s.MarkReady()
				return <-done
			}
			poll.Reset(shimPoll(time.Since(began)))
		}
	}
}

// shimPoll is the wait before the next look at the pod's shim socket, waited already for
// elapsed: 2 ms, then a tenth of the time waited, at most 20 ms. The shim binds its socket a
// few ms into its start on a quiet host, but seconds into it when many pods start at once; a
// poll every 2 ms then woke each pod's manager hundreds of times, for a socket seen at most a
// tenth of the wait later this way.
func shimPoll(elapsed time.Duration) time.Duration {
	return min(max(2*time.Millisecond, elapsed/10), 20*time.Millisecond)
}

// starterNow returns the container whose NewTask starts the pod's shim: the owner, or the one
// it was handed over to.
func (s *Shim) starterNow() Starter {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.starter
}

// handOver makes c start the pod's shim if starter, done preparing without starting it,
// failed only for its settings (ConfigFailed). It reports whether the wait for the shim goes
// on, with c or another waiter as the starter. The group keeps the owner's ID: the socket a
// shim started by another task leaves is removed with the pod (RemoveStale).
func (s *Shim) handOver(starter, c Starter) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.starter != starter:
		return true // another waiter took it over
	case starter.ConfigFailed():
		s.starter = c
		return true
	}
	return false
}

// ErrShimAborted fails a create that waited for the pod's shim when the container that was to
// start it failed first. It is a consequence, not a cause: the owner's error explains it.
var ErrShimAborted = errors.New("the pod's shim was not started: its first container failed")

// Socket is the socket of the pod's shim group (see SocketOf).
func (s *Shim) Socket() string { return s.SocketOf(s.Group()) }

// SocketOf is where containerd's runc shim manager puts the socket of a shim group (or of a
// task's own shim): /run/containerd/s/<sha256 of "<containerd address>/<namespace>/<group>">
// (containerd 1.6 to 2.x).
func (s *Shim) SocketOf(group string) string {
	return tasks.ShimSocketPath(s.address, s.namespace, group)
}

// RemoveStale removes the pod's shim socket once every task is deleted, if no shim answers on
// it. It is left when a shim was started for the group by a container other than the owner:
// when the owner's create fails after the shim answered (the owner's failure shuts that shim
// down, and a sibling's create in flight starts another), or when the group's first shim died
// (containerd, starting again, shuts down a shim whose process exited while it was away) and
// the next one was started by another task. A shared group is given back first, and its
// socket left while other pods' tasks use it.
func (s *Shim) RemoveStale(log *slog.Logger) {
	if s.Shared() && !s.groups.Release(s.shared, s.uid) {
		return // other pods' tasks use the shim
	}
	if g := s.Group(); g != "" {
		s.tasks.RemoveStaleShim(g, log)
	}
}
