package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/moby/sys/signal"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/podlife/internal/ocibuild"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/podsandbox"
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
// container, task (runc create), log file. The process is not started.
func (c *Container) prepare(ctx context.Context) {
	defer close(c.prepared)
	p := c.pod
	img, err := c.imageWithBackoff(ctx)
	if err != nil && ctx.Err() != nil {
		c.prepErr = ctx.Err() // cancelled by a stop or a failed sibling: not this container's failure
		return
	}
	if err != nil {
		reason := ReasonErrImagePull
		if errors.Is(err, ErrImageNeverPull) {
			reason = ReasonErrImageNeverPull
		}
		c.setWaiting(reason, err.Error())
		c.prepErr = &StartError{Pod: p.name, Container: c.spec.Name, Step: StepPull, Err: err}
		return
	}
	if err := c.setImage(ctx, img); err != nil {
		if ctx.Err() != nil {
			c.prepErr = ctx.Err()
			return
		}
		// The image is there but its config cannot be used (containerd's CRI fails the create).
		p.emit(c.spec.Name, EventWarning, ReasonFailed, "Error: "+err.Error())
		c.setWaiting(ReasonCreateContainerError, err.Error())
		c.prepErr = &StartError{Pod: p.name, Container: c.spec.Name, Step: StepCreate, Err: err}
		return
	}
	e := ocibuild.SecurityOf(&p.spec, c.spec)
	if err := e.VerifyRunAsNonRoot(p.name, p.spec.Namespace, c.spec.Name, c.imageConfig.Config.User); err != nil {
		p.emit(c.spec.Name, EventWarning, ReasonFailed, "Error: "+err.Error())
		// Not a setup failure: the pod stays and its other containers start (the kubelet
		// admits the pod and reports this container's error in its status).
		c.setWaiting(ReasonCreateContainerConfigError, err.Error())
		c.prepErr = &StartError{Pod: p.name, Container: c.spec.Name, Step: StepCreate, Err: &configError{Err: err}}
		return
	}
	if c.needsPodIP() {
		// Created before the network is attached, as the other containers are, it would
		// read no pod IP: the kubelet creates containers once the sandbox has its IP.
		if err := p.waitNetwork(ctx); err != nil {
			c.prepErr = err // the network's failure (or a stop), reported as the pod's
			return
		}
	}
	inst, err := c.newInstance(ctx, 0, c.plannedID)
	if err != nil {
		if errors.Is(err, podsandbox.ErrShimAborted) || ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			// The pod's shim will not come, or the wait for it was cancelled: another
			// container's failure or a stop. Any other error is this container's own (the
			// create itself is not cancellable).
			c.prepErr = err
			return
		}
		p.emit(c.spec.Name, EventWarning, ReasonFailed, "Error: "+err.Error())
		c.setWaiting(ReasonCreateContainerError, err.Error())
		c.prepErr = &StartError{Pod: p.name, Container: c.spec.Name, Step: StepCreate, Err: err}
		return
	}
	inst.shared = true
	p.update(func() {
		c.cur = inst
		c.live = append(c.live, inst)
	})
	p.emit(c.spec.Name, EventNormal, ReasonCreated, "Created container: "+c.spec.Name)
}

// setImage records the image and what the container takes from its config.
func (c *Container) setImage(ctx context.Context, img tasks.Image) error {
	if err := c.loadImage(ctx, img); err != nil {
		return err
	}
	c.pod.update(func() { c.imageID = img.ID })
	return nil
}

// loadImage reads the image's config and sets what the container takes from it (not its
// status's imageID, which is the loop's: see setImage).
func (c *Container) loadImage(ctx context.Context, img tasks.Image) error {
	cfg, err := c.pod.host.Tasks.ImageConfig(ctx, img)
	if err != nil {
		return fmt.Errorf("read image config: %w", err)
	}
	return c.useImage(img, cfg)
}

// useImage sets what the container takes from its image and the image's config (see
// loadImage).
func (c *Container) useImage(img tasks.Image, cfg ocispec.Image) error {
	// The stop signal's default is the image's STOPSIGNAL, known only now: the one default
	// admission cannot apply (see defaults.go).
	stop := c.spec.StopSignal
	if stop == 0 {
		stop = syscall.SIGTERM
		if cfg.Config.StopSignal != "" {
			sig, err := signal.ParseSignal(cfg.Config.StopSignal)
			if err != nil {
				return fmt.Errorf("image STOPSIGNAL %q: %w", cfg.Config.StopSignal, err)
			}
			stop = sig
		}
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

// startInstance starts an instance's process, runs its postStart hook and then its probes.
func (c *Container) startInstance(ctx context.Context, inst *instance) error {
	p := c.pod
	if ctx.Err() != nil {
		return ctx.Err()
	}
	// No process starts once the pod is stopping (a start policy may ignore its context; see
	// Pod.stopWith), and the stop waits for a start in flight to be recorded as running: the
	// loop grants the start (see start_gate.go).
	var task tasks.Task
	stopping := true // if the loop has ended (the Runtime closed), nothing starts
	p.do(func() {
		task, stopping = inst.task, p.stopping
		if !stopping && task != nil {
			p.beginStartOwned()
		}
	})
	if stopping {
		return context.Canceled
	}
	if task == nil {
		return &StartError{Pod: p.name, Container: c.spec.Name, Step: StepStart, Err: fmt.Errorf("task deleted: %w", ErrNotFound)}
	}
	if err := task.Start(context.WithoutCancel(ctx)); err != nil {
		p.do(p.endStartOwned)
		p.emit(c.spec.Name, EventWarning, ReasonFailed, "Error: "+err.Error())
		c.setWaiting(ReasonRunContainerError, err.Error())
		inst.markNeverRan()
		return &StartError{Pod: p.name, Container: c.spec.Name, Step: StepStart, Err: err}
	}
	now := time.Now()
	p.update(func() {
		inst.running, inst.startedAt = true, now
		c.hookFailed = ""
		c.state = ContainerState{Running: &StateRunning{StartedAt: now}}
		p.endStartOwned()
	})
	// Started is published before the exit watcher runs: a process that exits at once must not
	// have its Exited event come first.
	p.emitAt(now, c.spec.Name, EventNormal, ReasonStarted, "Started container "+c.spec.Name)
	p.spawn(gExitWatch, func() { c.watchExit(inst) })
	failpoint.Hit("start.started") // between Task.Start and postStart
	if h := c.spec.PostStart; h != nil {
		// Recorded while it runs: a manager that dies meanwhile leaves it for its adopter to
		// report as failed (see Runtime.Adopt), rather than silently lost.
		c.persistSupervision(func(s *record.ContainerSupervision) { s.PostStart = inst.id })
		failpoint.Hit("start.poststart") // with a delay: in the middle of the hook
		err := c.runHook(ctx, h, "PostStart")
		c.persistSupervision(func(s *record.ContainerSupervision) { s.PostStart = "" })
		if err != nil {
			return c.postStartFailed(inst, err)
		}
		p.emit(c.spec.Name, EventNormal, ReasonPostStartCompleted, "PostStartHook completed")
		failpoint.Hit("start.poststart-done")
	}
	c.startProbes(inst)
	return nil
}

// postStartFailed follows the kubelet: event without details, kill (preStop runs), waiting
// PostStartHookError with the details.
func (c *Container) postStartFailed(inst *instance, hookErr error) error {
	p := c.pod
	if p.isStopping() {
		// Cancelled by a stop: not a hook failure, and the stop kills the container.
		return &StartError{Pod: p.name, Container: c.spec.Name, Step: StepPostStart, Err: hookErr}
	}
	msg := fmt.Sprintf("%s lifecycle hook for Container %q in Pod %q failed - error: %v", hook.Describe(c.spec.PostStart), c.spec.Name, p.name, hookErr)
	p.do(func() { c.hookFailed = msg })
	p.emit(c.spec.Name, EventWarning, ReasonFailedPostStartHook, "PostStartHook failed")
	c.killInstance(inst, GracePeriod(&p.spec), string(ReasonFailedPostStartHook), true)
	return &StartError{Pod: p.name, Container: c.spec.Name, Step: StepPostStart, Err: hookErr}
}

// runHook runs a lifecycle handler (kind "PostStart" or "PreStop") against this container,
// bounded by HookTimeout if set. It never waits for the handler much past the end of ctx: a
// handler that has not returned hookSettle after ctx ended is abandoned, and a Warning event says
// so: its goroutine stays the worker's, awaited by Remove, unless it is Go code, which may ignore
// its context (see group.go).
func (c *Container) runHook(ctx context.Context, h hook.Handler, kind string) error {
	if t := c.spec.HookTimeout; t > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t)
		defer cancel()
	}
	done := make(chan error, 1) // the handler's goroutine never blocks on it
	run := c.pod.spawn(gHook, func() { done <- h.Run(ctx, c.target()) })
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	settle := time.NewTimer(hookSettle)
	defer settle.Stop()
	select {
	case err := <-done:
		return err
	case <-settle.C:
	}
	p := c.pod
	if !endsWithContext(h) {
		p.goroutines.Release(run) // Go code that ignores its context: see group.go
	}
	why := "the pod is stopping"
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && kind == "PreStop":
		why = "the grace period is over"
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		why = "its hookTimeout is over"
	}
	desc, _, _ := strings.Cut(hook.Describe(h), " ")
	reason := ReasonFailedPostStartHook
	if kind == "PreStop" {
		reason = ReasonFailedPreStopHook
	}
	p.emit(c.spec.Name, EventWarning, reason,
		fmt.Sprintf("%sHook (%s) abandoned: it did not return when %s", kind, desc, why))
	p.log.Warn("lifecycle hook abandoned: it ignores its context", "container", c.spec.Name, "hook", kind, "handler", hook.Describe(h))
	return fmt.Errorf("%s hook abandoned (it did not return when %s): %w", kind, why, ctx.Err())
}

// hookSettle is how long a hook whose context ended may take to return before it is abandoned.
const hookSettle = 200 * time.Millisecond

// target is what hooks and probes act on.
func (c *Container) target() hook.Target {
	p := c.pod
	return hook.Target{Pod: p.name, Container: c.spec.Name, IP: p.sandbox.IP(), Exec: hook.ExecerFunc(c.execCapture),
		Warn: func(reason, msg string) { p.emit(c.spec.Name, EventWarning, Reason(reason), msg) }}
}

func joinErrs(errs ...error) error { return errors.Join(errs...) }
