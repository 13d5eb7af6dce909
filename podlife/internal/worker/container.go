package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"syscall"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/containerspec"
	"github.com/podlife/podlife/podlife/internal/worker/imagepull"
	"github.com/podlife/podlife/podlife/internal/worker/lifecycle"
	"github.com/podlife/podlife/podlife/internal/worker/podsandbox"
	"github.com/podlife/podlife/podlife/internal/worker/podstart"
	"github.com/podlife/podlife/podlife/internal/worker/probing"
	"github.com/podlife/podlife/podlife/internal/worker/record"
	"github.com/podlife/podlife/podlife/internal/worker/status"
	"github.com/podlife/podlife/probe"
)

// Container is a handle on one container of a pod, across its restarts. Its methods are safe for
// concurrent use: its state belongs to the pod's owner loop, and reads come from the pod's last
// snapshot.
type Container struct {
	pod     *Worker
	spec    *ContainerSpec
	init    bool // an init container
	sidecar bool // an init container with restartPolicy Always (a native sidecar)
	// ephemeral: added to the running pod (Pod.AddEphemeralContainer), never restarted;
	// targetName names the container whose PID namespace it joins ("" for none).
	ephemeral  bool
	targetName string
	targetPin  string // the directory of the target's pinned PID namespace, while created (see unpinTarget)
	// stdin, tty: an interactive ephemeral container, whose stdio are FIFOs a client attaches
	// to (see attempt.AttachFIFOs) instead of a log.
	stdin, tty bool

	plannedID string // the containerd ID of its first instance

	// Set once by prepare, before prepared is closed.
	prepared    chan struct{}
	prepErr     error
	image       tasks.Image
	imageConfig ocispec.Image
	stopSignal  syscall.Signal

	// Owned by the pod's loop (see owner.go).
	cur  *instance   // the current instance (nil until created)
	live []*instance // instances whose containerd objects still exist
	st   status.Container

	// allocated is the resources of the last resize accepted (nil: the spec's), and
	// resizeRestart is set while the container is stopped to be restarted by a resize: its exit
	// restarts it whatever its restart policy says (shouldRestart). Loop state (resize.go).
	allocated     *Resources
	resizeRestart bool
}

// Name is the container's name in the pod spec.
func (c *Container) Name() string { return c.spec.Name }

// ID is the containerd ID of the current instance ("" until created).
func (c *Container) ID() string { return c.pod.view().ctrs[c].id }

// logPath is the CRI-format log file of the current attempt ("" until created). Earlier attempts'
// files stay beside it (<attempt>.log).
func (c *Container) logPath() string { return c.pod.view().ctrs[c].logPath }

// Status returns a snapshot of the container's status (from the pod's last published snapshot).
func (c *Container) Status() ContainerStatus { return c.pod.view().ctrs[c].status }

// statusOwned computes the container's status from its state; it runs on the pod's loop.
func (c *Container) statusOwned() ContainerStatus {
	id := ""
	if c.cur != nil {
		id = c.cur.id
	}
	st := c.st.Status(c.spec.Name, c.spec.Image, id, status.Kind{Init: c.init, Sidecar: c.sidecar, Ephemeral: c.ephemeral})
	c.statusResources(&st)
	return st
}

// NewID returns a random identifier (a pod's UID, a container instance's containerd ID).
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// setWaiting records a waiting state with a reason.
func (c *Container) setWaiting(reason Reason, msg string) {
	c.pod.update(func() { c.st.Wait(reason, msg) })
}

// prepare does everything for the first instance that does not depend on the start order: image,
// container, task (runc create), log file (see podstart.Prepare). The process is not started.
func (c *Container) prepare(ctx context.Context) {
	defer close(c.prepared)
	p := c.pod
	prep := podstart.Prep[tasks.Image]{Pod: p.name, Container: c.spec.Name,
		Image: func(ctx context.Context) (tasks.Image, error) { // under the pull back-off (see imagepull.Get)
			return p.getImage(ctx, imagepull.Request{Image: c.spec.Image, PullPolicy: c.spec.ImagePullPolicy,
				SetWaiting: c.setWaiting, Emit: p.emitter(c.spec.Name)})
		},
		UseImage:      c.setImage,
		VerifyNonRoot: func() error { return containerspec.VerifyNonRoot(&p.spec, c.spec, c.imageConfig.Config.User) },
		Create: func(ctx context.Context) error {
			newInstance := c.newInstance
			if c.gatesExec() {
				newInstance = c.newGatedInstance
			}
			inst, err := newInstance(ctx, 0, c.plannedID)
			if err == nil {
				inst.shared = true
				p.update(func() { c.cur, c.live = inst, append(c.live, inst) })
			}
			return err
		},
		ShimAborted: podsandbox.ErrShimAborted, SetWaiting: c.setWaiting, Emit: p.emitter(c.spec.Name),
	}
	if containerspec.NeedsPodIP(&p.spec, c.spec) {
		prep.WaitNetwork = p.waitNetwork
	}
	c.prepErr = podstart.Prepare(ctx, prep)
}

// setImage reads the image's config, sets what the container takes from it (useImage) and
// records the image's ID for its status.
func (c *Container) setImage(ctx context.Context, img tasks.Image) error {
	cfg, err := c.pod.host.Tasks.ImageConfig(ctx, img)
	if err != nil {
		return fmt.Errorf("read image config: %w", err)
	}
	if err = c.useImage(img, cfg); err == nil {
		c.pod.update(func() { c.st.ImageID = img.ID })
	}
	return err
}

// useImage sets what the container takes from its image and the image's config (not its
// status's imageID, which is the loop's: see setImage).
func (c *Container) useImage(img tasks.Image, cfg ocispec.Image) error {
	stop, err := containerspec.StopSignal(c.spec.StopSignal, cfg.Config.StopSignal)
	if err != nil {
		return err
	}
	c.image, c.imageConfig, c.stopSignal = img, cfg, stop
	return nil
}

// start starts the first instance's process and runs its postStart hook; it returns when the
// hook has finished.
func (c *Container) start(ctx context.Context) error {
	p := c.pod
	select {
	case <-c.prepared:
	case <-ctx.Done():
		return ctx.Err()
	}
	if c.prepErr != nil {
		return c.prepErr
	}
	if err := p.waitNetwork(ctx); err != nil {
		return err
	}
	inst, _ := c.current()
	if inst == nil {
		return fmt.Errorf("container %q: %w", c.spec.Name, ErrClosed) // the loop ended: the Runtime was closed
	}
	return c.startInstance(ctx, inst)
}

// startInstance starts an instance's process, runs its postStart hook and then its probes (see
// lifecycle.Start). The loop grants the start (see lifecycle.Gate).
func (c *Container) startInstance(ctx context.Context, inst *instance) error {
	p := c.pod
	i := lifecycle.Instance{Pod: p.name, Container: c.spec.Name, ID: inst.id, Emit: p.emitter(c.spec.Name),
		Grant: func() (start func(context.Context) error, stopping bool) {
			stopping = true // if the loop has ended (the Runtime closed), nothing starts
			p.do(func() { start, stopping = p.starts.Grant(p.stopping, inst.task), p.stopping })
			if start != nil && inst.gate != nil {
				start = releaseGate(inst) // the task runs: its gate waits (see newGatedInstance)
			}
			return start, stopping
		},
		Failed: func(err error) {
			p.do(p.starts.End)
			p.emit(c.spec.Name, EventWarning, ReasonFailed, "Error: "+err.Error())
			c.setWaiting(ReasonRunContainerError, err.Error())
			inst.markNeverRan()
		},
		Running: func() {
			now := time.Now()
			p.update(func() {
				inst.running, inst.startedAt = true, now
				c.st.Run(now)
				p.starts.End()
			})
			// Started is published before the exit watcher runs: a process that exits at once
			// must not have its Exited event come first.
			p.emitAt(now, c.spec.Name, EventNormal, ReasonStarted, "Started container "+c.spec.Name)
			p.spawn(gExitWatch, func() { c.watchExit(inst) })
		},
		Supervise:       func(id string) { c.persistSupervision(func(s *record.ContainerSupervision) { s.PostStart = id }) },
		PostStartFailed: func(err error) error { return c.postStartFailed(inst, err) },
		Probes:          func() { c.startProbesFrom(inst, false) },
	}
	if h := c.spec.PostStart; h != nil {
		i.PostStart = func(ctx context.Context) error { return c.runHook(ctx, h, lifecycle.PostStart) }
	}
	return lifecycle.Start(ctx, i)
}

// postStartFailed follows the kubelet: event without details, kill (preStop runs), waiting
// PostStartHookError with the details.
func (c *Container) postStartFailed(inst *instance, hookErr error) error {
	p := c.pod
	if !p.isStopping() { // else cancelled by a stop: not a hook failure, and the stop kills the container
		msg := lifecycle.PostStartMessage(c.spec.PostStart, p.name, c.spec.Name, hookErr)
		p.do(func() { c.st.HookFailed = msg })
		p.emit(c.spec.Name, EventWarning, ReasonFailedPostStartHook, "PostStartHook failed")
		c.killInstance(inst, GracePeriod(&p.spec), string(ReasonFailedPostStartHook), true)
	}
	return &StartError{Pod: p.name, Container: c.spec.Name, Step: StepPostStart, Err: hookErr}
}

// runHook runs a lifecycle handler (kind "PostStart" or "PreStop") against this container (see
// lifecycle.Run) in the pod's group, which releases Go code, that may ignore its context, once
// it is abandoned (see group.go).
func (c *Container) runHook(ctx context.Context, h hook.Handler, kind string) error {
	p := c.pod
	return lifecycle.Run(ctx, lifecycle.Hook{Kind: kind, Handler: h, Timeout: c.spec.HookTimeout, Target: c.target(),
		Log: p.log.With("container", c.spec.Name), Warn: func(r Reason, msg string) { p.emit(c.spec.Name, EventWarning, r, msg) },
		Go: func(fn func()) func() {
			run := p.spawn(gHook, fn)
			return func() {
				if !endsWithContext(h) {
					p.goroutines.Release(run) // Go code that ignores its context: see group.go
				}
			}
		}})
}

// target is what hooks and probes act on.
func (c *Container) target() hook.Target {
	p := c.pod
	return hook.Target{Pod: p.name, Container: c.spec.Name, IP: p.sandbox.IP(), Exec: hook.ExecerFunc(c.execCapture),
		Warn: func(reason, msg string) { p.emit(c.spec.Name, EventWarning, Reason(reason), msg) }}
}

// awaitStarts waits, once the pod is stopping, until no start granted before is in flight, or
// the loop ended (see lifecycle.Gate.Await).
func (p *Worker) awaitStarts() { p.starts.Await(p.do, p.owner.Done()) }

// startProbesFrom starts an instance's probes once its postStart hook has returned (see
// probing.Start), without the startup probe if startupDone (it passed under a previous
// manager). They end at the exit, the startup and liveness probes also at the pod's stop (the
// kubelet's: a terminating container turns unready when its readiness probe fails).
func (c *Container) startProbesFrom(inst *instance, startupDone bool) {
	p := c.pod
	ctx, cancel := context.WithCancel(p.startCtx)
	readyCtx, cancelReady := context.WithCancel(p.watchCtx) // ends at Close, not at a stop
	stop := func() { cancel(); cancelReady() }
	// Set on the loop, ordered with the exit watcher's cancel; true if the loop has ended.
	exited := true
	p.do(func() {
		select {
		case <-inst.exited:
		default:
			exited, inst.cancel = false, stop
		}
	})
	if exited {
		stop()
		return
	}
	set := probing.Start(ctx, readyCtx, probing.Config{
		Pod: p.name, Namespace: p.spec.Namespace, PodUID: p.uid, Container: c.spec.Name,
		Startup: c.spec.StartupProbe, Liveness: c.spec.LivenessProbe,
		Readiness: c.spec.ReadinessProbe, StartupDone: startupDone,
		Target: c.target(), StartedAt: inst.startedAt, Clock: p.host.Clock, Log: p.log,
		Warn:          func(reason Reason, msg string) { p.emit(c.spec.Name, EventWarning, reason, msg) },
		Publish:       p.host.PublishProbe,
		StartupPassed: func() { c.persistSupervision(func(s *record.ContainerSupervision) { s.Started = inst.id }) },
		Started: func() (current bool) {
			p.updateIf(func() bool {
				current = c.cur == inst && c.st.MarkStarted(c.spec.ReadinessProbe != nil)
				return current
			})
			return current
		},
		Ready: func(ok bool) {
			p.update(func() {
				if c.cur == inst {
					c.st.SetReady(ok)
				}
			})
		},
		Kill: func(kind probe.Kind, spec *probe.Spec) { c.killForProbe(inst, kind, spec) },
	})
	// The probe workers and their kills end with the instance (or Abandon): the pod's group
	// awaits them through the set.
	p.spawn(gProbes, set.Wait)
}

// killForProbe kills an instance whose liveness or startup probe failed (see probing.KillOf);
// its exit then restarts it per the restart policy.
func (c *Container) killForProbe(inst *instance, kind probe.Kind, spec *probe.Spec) {
	if !c.pod.isStopping() {
		msg, grace := probing.KillOf(c.spec.Name, kind, spec, GracePeriod(&c.pod.spec), c.shouldRestart(137))
		c.killInstance(inst, grace, msg, true)
	}
}
