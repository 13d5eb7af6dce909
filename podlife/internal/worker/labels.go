package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/layout"

	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/podlife/podlife/podlife/internal/tasks"
)

// Labels podlife puts on every containerd container it creates (with the pod's own labels). A
// program or an operator finds a pod's containerd containers with the first two, e.g.
// `ctr -n podlife containers ls labels."podlife.io/pod"==web`; the others are podlife's
// bookkeeping and may change.
const (
	// LabelPod is the pod's name.
	LabelPod = "podlife.io/pod"
	// LabelContainer is the container's name in its pod ("POD" for a pod's pause).
	LabelContainer = "podlife.io/container"
	// LabelPodUID is the pod's UID (see Worker.UID).
	LabelPodUID    = "podlife.io/pod-uid"
	labelNamespace = "podlife.io/namespace"
	// LabelKind is the container's kind: "init", "app", "ephemeral" or LabelKindPause.
	LabelKind = "podlife.io/kind"
	// LabelAttempt is the instance's attempt: 0, then one more at each restart.
	LabelAttempt = "podlife.io/attempt"
	// labelStopSignal is the container's stop signal (a number), for a process that stops the
	// pod after its manager died.
	labelStopSignal = "podlife.io/stop-signal"
	// annotationShimGroup (an OCI spec annotation) makes containerd's runc shim serve all
	// containers with the same value in one process.
	annotationShimGroup = "io.containerd.runc.v2.group"
)

func (p *Worker) labels(c *Container) map[string]string {
	l := make(map[string]string, len(p.spec.Labels)+7)
	for k, v := range p.spec.Labels {
		l[k] = v
	}
	l[LabelPod] = p.name
	l[LabelPodUID] = p.uid
	l[layout.LabelStateDir] = p.rt.Cfg.StateDir
	l[labelNamespace] = p.spec.Namespace
	l[LabelContainer] = c.spec.Name
	l[LabelAttempt] = strconv.Itoa(0)
	l[LabelKind] = "app"
	switch {
	case c.init:
		l[LabelKind] = "init"
	case c.ephemeral:
		l[LabelKind] = "ephemeral"
	}
	return l
}

// shimGroup is the runc shim group of the pod's containers ("" for one shim per container): the
// ID of the pod's pause if it has one, else of its first container, which starts the shim. containerd's runc shim removes, when
// it exits, the socket derived from the ID of the task that started it; a group ID of its own
// would leave a stale socket in /run/containerd/s for every pod (the CRI plugin groups by its
// sandbox's ID for the same reason).
func (p *Worker) shimGroup() string {
	switch {
	case p.sharedGroup != "" && p.pause == nil:
		return p.sharedGroup // ShimShared
	case p.rt.Cfg.ShimPerContainer:
		return ""
	case p.pause != nil:
		return p.pause.id // created first, deleted last
	}
	return p.shimOwner.plannedID
}

// withShim runs fn, the NewTask of container c. With one shim per pod, the owner's NewTask
// starts the shim, and the other NewTasks wait until the shim answers on its socket: concurrent
// first starts race in containerd's runc shim manager for the group's socket, and the loser's
// shim would be left running with nothing to serve. Once the shim answers (the state in which
// containerd reuses a group's shim, as the CRI plugin does for every container after the
// sandbox), NewTasks run in parallel. If the socket is never seen, the others go when the
// owner's NewTask has succeeded.
//
// A waiter never waits for a shim that will not come: it returns ctx's error when ctx ends (a
// stop, or a sibling's setup failure), and errShimAborted when the owner's preparation ended
// without starting the shim (its pull, image config or create failed). An owner that cannot be
// created with its settings (ErrCreateContainerConfig) does not fail the pod: the first waiter
// starts the shim instead (handOverShim).
func (p *Worker) withShim(ctx context.Context, c *Container, fn func() error) error {
	if g := p.sharedGroup; g != "" && p.pause == nil {
		return p.rt.ShimGroups.Start(ctx, g, func() bool { return p.rt.Tasks.ShimAnswers(g) }, fn)
	}
	if p.shimGroup() == "" || p.pause != nil {
		return fn() // one shim each, or the pause's task has started the pod's shim
	}
	for starter := p.shimStarterOf(); c != starter; starter = p.shimStarterOf() {
		select {
		case <-p.shimReady:
			return fn()
		case <-starter.prepared:
			// The starter is done preparing: either the shim is up (both channels may be
			// ready at once) or it will never be started by it.
			select {
			case <-p.shimReady:
				return fn()
			default:
			}
			if !p.handOverShim(starter, c) {
				return fmt.Errorf("container %q: %w", starter.spec.Name, errShimAborted)
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	done := make(chan error, 1)
	go func() { done <- fn() }()
	group := p.shimGroup()
	p.log.Debug("starting the pod's shim", "container", c.spec.Name, "socket", p.shimSocket())
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err == nil {
				p.shimReadyOnce.Do(func() { close(p.shimReady) })
			}
			return err
		case <-tick.C:
			if p.rt.Tasks.ShimAnswers(group) {
				p.shimReadyOnce.Do(func() { close(p.shimReady) })
				return <-done
			}
		}
	}
}

// shimStarterOf returns the container whose NewTask starts the pod's shim: the owner, or the one
// it was handed over to.
func (p *Worker) shimStarterOf() *Container {
	p.shimMu.Lock()
	defer p.shimMu.Unlock()
	return p.shimStarter
}

// handOverShim makes c start the pod's shim if starter, done preparing without starting it,
// failed only for its settings (ErrCreateContainerConfig: the pod stays and its other
// containers start). It reports whether the wait for the shim goes on, with c or another
// waiter as the starter. The group keeps the owner's ID: the socket a shim started by another
// task leaves is removed with the pod (removeStaleShimSocket).
func (p *Worker) handOverShim(starter, c *Container) bool {
	p.shimMu.Lock()
	defer p.shimMu.Unlock()
	switch {
	case p.shimStarter != starter:
		return true // another waiter took it over
	case errors.Is(starter.prepErr, ErrCreateContainerConfig):
		p.shimStarter = c
		return true
	}
	return false
}

// errShimAborted fails a create that waited for the pod's shim when the container that was to
// start it failed first. It is a consequence, not a cause: the owner's error explains it.
var errShimAborted = errors.New("the pod's shim was not started: its first container failed")

// shimSocket is the socket of the pod's shim group (see shimSocketOf).
func (p *Worker) shimSocket() string { return p.shimSocketOf(p.shimGroup()) }

// shimSocketOf is where containerd's runc shim manager puts the socket of a shim group (or of a
// task's own shim): /run/containerd/s/<sha256 of "<containerd address>/<namespace>/<group>">
// (containerd 1.6 to 2.x).
func (p *Worker) shimSocketOf(group string) string {
	return tasks.ShimSocketPath(p.rt.Address, p.rt.Cfg.Namespace, group)
}

// removeStaleShimSocket removes the pod's shim socket once every task is deleted, if no shim
// answers on it. It is left when a shim was started for the group by a container other than
// the owner: when the owner's create fails after the shim answered (the owner's failure shuts
// that shim down, and a sibling's create in flight starts another), or when the group's first
// shim died (containerd, starting again, shuts down a shim whose process exited while it was
// away) and the next one was started by another task.
func (p *Worker) removeStaleShimSocket() {
	if g := p.sharedGroup; g != "" && p.pause == nil && !p.rt.ShimGroups.Release(g, p.uid) {
		return // other pods' tasks use the shim
	}
	if g := p.shimGroup(); g != "" {
		p.rt.Tasks.RemoveStaleShim(g, p.log)
	}
}
