package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"syscall"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife/internal/ocibuild"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/containerspec"
	"github.com/podlife/podlife/podlife/internal/worker/imagepull"
	"github.com/podlife/podlife/podlife/internal/worker/lifecycle"
	"github.com/podlife/podlife/podlife/internal/worker/podsandbox"
	"github.com/podlife/podlife/podlife/internal/worker/podstart"
	"github.com/podlife/podlife/podlife/internal/worker/record"
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
	// to (see attach.go) instead of a log.
	stdin, tty bool

	plannedID string // the containerd ID of its first instance

	// Set once by prepare, before prepared is closed.
	prepared    chan struct{}
	prepErr     error
	image       tasks.Image
	imageConfig ocispec.Image
	stopSignal  syscall.Signal

	// Owned by the pod's loop (see owner.go).
	cur          *instance   // the current instance (nil until created)
	live         []*instance // instances whose containerd objects still exist
	imageID      string
	state        ContainerState
	lastState    ContainerState
	started      bool
	ready        bool
	restartCount int
	hookFailed   string // the postStart failure of the current instance, for its waiting state

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
	st := ContainerStatus{Name: c.spec.Name, Image: c.spec.Image, ImageID: c.imageID,
		State: c.state, LastState: c.lastState, Ready: c.ready, Started: c.started, RestartCount: c.restartCount}
	if c.init && !c.sidecar {
		// The kubelet: a regular init container is ready once it completed, not while it runs.
		t := c.state.Terminated
		st.Ready = t != nil && t.ExitCode == 0
	}
	if c.ephemeral {
		// The kubelet's prober never reports on ephemeral containers.
		st.Ready, st.Started = false, false
	}
	if c.cur != nil {
		st.ContainerID = "containerd://" + c.cur.id
	}
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
	c.pod.update(func() { c.state = ContainerState{Waiting: &StateWaiting{Reason: reason, Message: msg}} })
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
		UseImage: c.setImage,
		VerifyNonRoot: func() error {
			e := ocibuild.SecurityOf(&p.spec, c.spec)
			if err := e.VerifyRunAsNonRoot(p.name, p.spec.Namespace, c.spec.Name, c.imageConfig.Config.User); err != nil {
				return &containerspec.ConfigError{Err: err}
			}
			return nil
		},
		Create: func(ctx context.Context) error {
			inst, err := c.newInstance(ctx, 0, c.plannedID)
			if err == nil {
				inst.shared = true
				p.update(func() {
					c.cur = inst
					c.live = append(c.live, inst)
				})
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
	if err := c.useImage(img, cfg); err != nil {
		return err
	}
	c.pod.update(func() { c.imageID = img.ID })
	return nil
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
	var inst *instance
	p.do(func() { inst = c.cur })
	if inst == nil {
		return fmt.Errorf("container %q: %w", c.spec.Name, ErrClosed) // the loop ended: the Runtime was closed
	}
	return c.startInstance(ctx, inst)
}

// startInstance starts an instance's process, runs its postStart hook and then its probes (see
// lifecycle.Start). The loop grants the start (see lifecycle.Gate).
func (c *Container) startInstance(ctx context.Context, inst *instance) error {
	p := c.pod
	i := lifecycle.Instance{Pod: p.name, Container: c.spec.Name, Emit: p.emitter(c.spec.Name),
		Grant: func() (start func(context.Context) error, stopping bool) {
			stopping = true // if the loop has ended (the Runtime closed), nothing starts
			p.do(func() {
				stopping = p.stopping
				if !stopping && inst.task != nil {
					start = inst.task.Start
					p.starts.Begin()
				}
			})
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
				c.hookFailed = ""
				c.state = ContainerState{Running: &StateRunning{StartedAt: now}}
				p.starts.End()
			})
			// Started is published before the exit watcher runs: a process that exits at once
			// must not have its Exited event come first.
			p.emitAt(now, c.spec.Name, EventNormal, ReasonStarted, "Started container "+c.spec.Name)
			p.spawn(gExitWatch, func() { c.watchExit(inst) })
		},
		Supervise: func(inFlight bool) {
			id := ""
			if inFlight {
				id = inst.id
			}
			c.persistSupervision(func(s *record.ContainerSupervision) { s.PostStart = id })
		},
		PostStartFailed: func(err error) error { return c.postStartFailed(inst, err) },
		Probes:          func() { c.startProbes(inst) },
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
	if p.isStopping() {
		// Cancelled by a stop: not a hook failure, and the stop kills the container.
		return &StartError{Pod: p.name, Container: c.spec.Name, Step: StepPostStart, Err: hookErr}
	}
	msg := lifecycle.PostStartMessage(c.spec.PostStart, p.name, c.spec.Name, hookErr)
	p.do(func() { c.hookFailed = msg })
	p.emit(c.spec.Name, EventWarning, ReasonFailedPostStartHook, "PostStartHook failed")
	c.killInstance(inst, GracePeriod(&p.spec), string(ReasonFailedPostStartHook), true)
	return &StartError{Pod: p.name, Container: c.spec.Name, Step: StepPostStart, Err: hookErr}
}

// runHook runs a lifecycle handler (kind "PostStart" or "PreStop") against this container (see
// lifecycle.Run): bounded by HookTimeout if set, abandoned with a Warning event if it does not
// return soon after ctx ends. Its goroutine stays the worker's, awaited by Remove, unless it is
// Go code, which may ignore its context (see group.go).
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

func joinErrs(errs ...error) error { return errors.Join(errs...) }
