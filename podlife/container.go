package podlife

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/cio"
	"github.com/containerd/errdefs"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/hook"
)

// Container is one container of a pod. Its methods are safe for concurrent use.
type Container struct {
	pod  *Pod
	spec *ContainerSpec
	init bool

	plannedID string // the containerd ID it will have

	// Set once by prepare, before prepared is closed.
	prepared   chan struct{}
	prepErr    error
	id         string
	imageName  string
	imageID    string
	ctr        client.Container
	task       client.Task
	exitCh     <-chan client.ExitStatus
	stopSignal syscall.Signal
	log        *criLog
	logPath    string
	streams    []io.Closer

	exited chan struct{} // closed when the process has exited (or will never run)

	// Guarded by pod.mu.
	state      ContainerState
	lastState  ContainerState
	started    bool
	ready      bool
	running    bool // the process was started
	hookFailed string
	procSpec   *specs.Process
}

// Name is the container's name in the pod spec.
func (c *Container) Name() string { return c.spec.Name }

// ID is the containerd container ID ("" until created).
func (c *Container) ID() string {
	<-c.prepared
	return c.id
}

// LogPath is the CRI-format log file of the current attempt ("" until created).
func (c *Container) LogPath() string {
	<-c.prepared
	return c.logPath
}

// Status returns a snapshot of the container's status.
func (c *Container) Status() ContainerStatus {
	c.pod.mu.Lock()
	defer c.pod.mu.Unlock()
	return c.statusLocked()
}

func (c *Container) statusLocked() ContainerStatus {
	st := ContainerStatus{Name: c.spec.Name, Image: c.spec.Image, ImageID: c.imageID,
		State: c.state, LastState: c.lastState, Ready: c.ready, Started: c.started}
	if c.id != "" {
		st.ContainerID = "containerd://" + c.id
	}
	return st
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// setWaiting records a waiting state with a reason.
func (c *Container) setWaiting(reason, msg string) {
	c.pod.mu.Lock()
	c.state = ContainerState{Waiting: &StateWaiting{Reason: reason, Message: msg}}
	c.pod.mu.Unlock()
	c.pod.changed()
}

// prepare does everything that does not depend on the start order: image, container, task
// (runc create), log file. The process is not started.
func (c *Container) prepare(ctx context.Context) {
	defer close(c.prepared)
	p := c.pod
	img, err := p.ensureImage(ctx, c.spec)
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
	p.mu.Lock()
	c.imageName = img.Name()
	c.imageID = img.Target().Digest.String()
	p.mu.Unlock()
	if err := c.create(ctx, img); err != nil {
		if ctx.Err() != nil {
			c.prepErr = ctx.Err()
			return
		}
		p.emit(c.spec.Name, EventWarning, ReasonFailed, "Error: "+err.Error())
		c.setWaiting(ReasonCreateContainerError, err.Error())
		c.prepErr = &StartError{Pod: p.name, Container: c.spec.Name, Step: StepCreate, Err: err}
		return
	}
	p.emit(c.spec.Name, EventNormal, ReasonCreated, "Created container: "+c.spec.Name)
}

func (c *Container) create(ctx context.Context, img client.Image) error {
	p := c.pod
	r := p.rt
	id := c.plannedID
	t0 := time.Now()
	opts, stopSignal, err := c.specOpts(ctx, img)
	if err != nil {
		return err
	}
	labels := p.labels(c)
	ctrOpts := []client.NewContainerOpts{
		client.WithImageName(img.Name()),
		client.WithSnapshotter(r.cfg.Snapshotter),
		client.WithNewSnapshot(id, img),
		client.WithRuntime(r.cfg.RuntimeName, nil),
		client.WithNewSpec(opts...),
		client.WithContainerLabels(labels),
	}
	t1 := time.Now()
	ctr, err := r.client.NewContainer(ctx, id, ctrOpts...)
	if err != nil {
		return fmt.Errorf("create container: %w", err)
	}
	t2 := time.Now()
	lg, path, err := openCRILog(filepath.Join(p.sandbox.dir, "logs", c.spec.Name), 0)
	if err != nil {
		_ = ctr.Delete(context.WithoutCancel(ctx), client.WithSnapshotCleanup)
		return err
	}
	stdout, stderr := lg.stream("stdout"), lg.stream("stderr")
	var task client.Task
	err = p.withShim(ctx, c, func() error {
		var err error
		task, err = ctr.NewTask(ctx, cio.NewCreator(cio.WithStreams(nil, stdout, stderr), p.sandbox.fifoDir()))
		return err
	})
	if err != nil {
		_ = lg.Close()
		_ = ctr.Delete(context.WithoutCancel(ctx), client.WithSnapshotCleanup)
		return fmt.Errorf("create task: %w", err)
	}
	t3 := time.Now()
	exitCh, err := task.Wait(p.lifeCtx)
	if err != nil {
		_, _ = task.Delete(context.WithoutCancel(ctx), client.WithProcessKill)
		_ = lg.Close()
		_ = ctr.Delete(context.WithoutCancel(ctx), client.WithSnapshotCleanup)
		return fmt.Errorf("wait task: %w", err)
	}
	p.log.Debug("container created", "container", c.spec.Name, "id", id, "spec", t1.Sub(t0),
		"newContainer", t2.Sub(t1), "newTask", t3.Sub(t2), "wait", time.Since(t3))
	p.mu.Lock()
	c.id, c.ctr, c.task, c.exitCh, c.stopSignal = id, ctr, task, exitCh, stopSignal
	c.log, c.logPath, c.streams = lg, path, []io.Closer{stdout, stderr}
	p.mu.Unlock()
	return nil
}

// start starts the process and runs the postStart hook; it returns when the hook has finished.
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
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err := c.task.Start(context.WithoutCancel(ctx)); err != nil {
		p.emit(c.spec.Name, EventWarning, ReasonFailed, "Error: "+err.Error())
		c.setWaiting(ReasonRunContainerError, err.Error())
		c.markNeverRan()
		return &StartError{Pod: p.name, Container: c.spec.Name, Step: StepStart, Err: err}
	}
	now := time.Now()
	p.mu.Lock()
	c.running = true
	c.state = ContainerState{Running: &StateRunning{StartedAt: now}}
	p.mu.Unlock()
	go c.watchExit(now)
	p.emitAt(now, c.spec.Name, EventNormal, ReasonStarted, "Started container "+c.spec.Name)
	p.changed()
	if h := c.spec.PostStart; h != nil {
		if err := c.runHook(ctx, h); err != nil {
			return c.postStartFailed(err)
		}
		p.emit(c.spec.Name, EventNormal, ReasonPostStartCompleted, "PostStartHook completed")
	}
	p.mu.Lock()
	if c.state.Running != nil {
		c.started, c.ready = true, true
	}
	p.mu.Unlock()
	p.changed()
	return nil
}

// postStartFailed follows the kubelet: event without details, kill (preStop runs), waiting
// PostStartHookError with the details.
func (c *Container) postStartFailed(hookErr error) error {
	p := c.pod
	if p.isStopping() {
		// Cancelled by a stop: not a hook failure, and the stop kills the container.
		return &StartError{Pod: p.name, Container: c.spec.Name, Step: StepPostStart, Err: hookErr}
	}
	msg := fmt.Sprintf("%s lifecycle hook for Container %q in Pod %q failed - error: %v", hook.Describe(c.spec.PostStart), c.spec.Name, p.name, hookErr)
	p.mu.Lock()
	c.hookFailed = msg
	p.mu.Unlock()
	p.emit(c.spec.Name, EventWarning, ReasonFailedPostStartHook, "PostStartHook failed")
	c.kill(p.spec.gracePeriod(), ReasonFailedPostStartHook, true)
	return &StartError{Pod: p.name, Container: c.spec.Name, Step: StepPostStart, Err: hookErr}
}

// runHook runs a lifecycle handler against this container, bounded by HookTimeout if set.
func (c *Container) runHook(ctx context.Context, h hook.Handler) error {
	if t := c.spec.HookTimeout; t > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t)
		defer cancel()
	}
	p := c.pod
	target := hook.Target{Pod: p.name, Container: c.spec.Name, IP: p.sandbox.IP(), Exec: c,
		Warn: func(reason, msg string) { p.emit(c.spec.Name, EventWarning, reason, msg) }}
	return h.Run(ctx, target)
}

// markNeverRan closes exited for a container whose process will never run.
func (c *Container) markNeverRan() {
	select {
	case <-c.exited:
	default:
		close(c.exited)
	}
}

// watchExit records the process's exit.
func (c *Container) watchExit(startedAt time.Time) {
	p := c.pod
	st := <-c.exitCh
	code, at, err := st.Result()
	if err != nil {
		if p.rt.isClosed() {
			// The runtime detached: the process may well still run. Record nothing.
			return
		}
		p.log.Warn("lost track of a container's process", "container", c.spec.Name, "err", err)
		at = time.Now()
		code = client.UnknownExitStatus
	}
	term := &StateTerminated{ExitCode: int(code), StartedAt: startedAt, FinishedAt: at, Reason: ReasonCompleted}
	if code != 0 {
		term.Reason = ReasonError
	}
	if code > 128 && code < 128+65 {
		term.Signal = int(code) - 128
	}
	p.mu.Lock()
	c.ready = false
	if c.hookFailed != "" {
		c.lastState = ContainerState{Terminated: term}
		c.state = ContainerState{Waiting: &StateWaiting{Reason: ReasonPostStartHookError, Message: c.hookFailed}}
	} else {
		c.state = ContainerState{Terminated: term}
	}
	p.mu.Unlock()
	typ := EventNormal
	if code != 0 {
		typ = EventWarning
	}
	p.emitAt(at, c.spec.Name, typ, ReasonExited, "Container "+c.spec.Name+" exited with code "+strconv.Itoa(int(code)))
	close(c.exited)
	p.changed()
	p.onContainerExit()
}

// kill stops the container's process the kubelet's way: Killing event, preStop within the grace
// period (if withHooks), the stop signal, SIGKILL once the remaining grace (at least 2 s) is over.
func (c *Container) kill(grace time.Duration, reason string, withHooks bool) {
	p := c.pod
	p.mu.Lock()
	running := c.running && c.state.Running != nil
	task := c.task
	p.mu.Unlock()
	if task == nil {
		return
	}
	ctx := p.lifeCtx
	if !running {
		select {
		case <-c.exited:
			return
		default:
		}
		if !c.running {
			// Created but never started: nothing to stop gracefully.
			_ = task.Kill(ctx, syscall.SIGKILL)
			c.markNeverRan()
			return
		}
	}
	msg := "Stopping container " + c.spec.Name
	if reason != "" {
		msg = reason
	}
	p.emit(c.spec.Name, EventNormal, ReasonKilling, msg)
	start := time.Now()
	if h := c.spec.PreStop; h != nil && withHooks && grace > 0 {
		hctx, cancel := context.WithTimeout(ctx, grace)
		err := c.runHook(hctx, h)
		cancel()
		if err != nil {
			p.emit(c.spec.Name, EventWarning, ReasonFailedPreStopHook, "PreStopHook failed")
			p.log.Info("preStop hook failed", "pod", p.name, "container", c.spec.Name, "err", err)
		}
	}
	remaining := grace - time.Since(start)
	if remaining < minGracePeriod {
		remaining = minGracePeriod
	}
	if err := task.Kill(ctx, c.stopSignal); err != nil && !errdefs.IsNotFound(err) {
		p.log.Debug("stop signal", "pod", p.name, "container", c.spec.Name, "err", err)
	}
	timer := time.NewTimer(remaining)
	defer timer.Stop()
	select {
	case <-c.exited:
		return
	case <-timer.C:
	}
	if err := task.Kill(ctx, syscall.SIGKILL, client.WithKillAll); err != nil && !errdefs.IsNotFound(err) {
		p.log.Debug("SIGKILL", "pod", p.name, "container", c.spec.Name, "err", err)
	}
	<-c.exited
}

// minGracePeriod is the kubelet's minimum time between the stop signal and SIGKILL.
const minGracePeriod = 2 * time.Second

// deleteTask removes the task (and its shim if it was the last one in it) once the process is gone.
func (c *Container) deleteTask(ctx context.Context) error {
	c.pod.mu.Lock()
	task := c.task
	c.task = nil
	c.pod.mu.Unlock()
	if task == nil {
		return nil
	}
	_, err := task.Delete(ctx, client.WithProcessKill)
	for _, s := range c.streams {
		_ = s.Close()
	}
	if c.log != nil {
		_ = c.log.Close()
	}
	if err != nil && !errdefs.IsNotFound(err) {
		return fmt.Errorf("container %q: delete task: %w", c.spec.Name, err)
	}
	return nil
}

// deleteContainer removes the containerd container and its snapshot.
func (c *Container) deleteContainer(ctx context.Context) error {
	c.pod.mu.Lock()
	ctr := c.ctr
	c.ctr = nil
	c.pod.mu.Unlock()
	if ctr == nil {
		return nil
	}
	if err := ctr.Delete(ctx, client.WithSnapshotCleanup); err != nil && !errdefs.IsNotFound(err) {
		return fmt.Errorf("container %q: delete: %w", c.spec.Name, err)
	}
	return nil
}

// Signal sends a signal to the container's main process.
func (c *Container) Signal(ctx context.Context, sig syscall.Signal) error {
	c.pod.mu.Lock()
	task := c.task
	c.pod.mu.Unlock()
	if task == nil {
		return fmt.Errorf("container %q: no process: %w", c.spec.Name, ErrNotFound)
	}
	return task.Kill(c.pod.rt.ctx(ctx), sig)
}

// Exec runs argv inside the container and returns its exit code and combined output (up to 1 MiB).
// If ctx ends first, the process is killed. Container satisfies hook.Execer.
func (c *Container) Exec(ctx context.Context, argv []string) (hook.ExecResult, error) {
	p := c.pod
	p.mu.Lock()
	task, ctr, pspec := c.task, c.ctr, c.procSpec
	p.mu.Unlock()
	if task == nil {
		return hook.ExecResult{}, fmt.Errorf("container %q: not running: %w", c.spec.Name, ErrNotFound)
	}
	bg := context.WithoutCancel(p.rt.ctx(ctx))
	if pspec == nil {
		spec, err := ctr.Spec(bg)
		if err != nil {
			return hook.ExecResult{}, err
		}
		pspec = spec.Process
		p.mu.Lock()
		c.procSpec = pspec
		p.mu.Unlock()
	}
	ps := *pspec
	ps.Args = argv
	ps.Terminal = false
	out := &cappedBuffer{max: 1 << 20}
	proc, err := task.Exec(bg, "exec-"+newID()[:12], &ps, cio.NewCreator(cio.WithStreams(nil, out, out), p.sandbox.fifoDir()))
	if err != nil {
		return hook.ExecResult{}, fmt.Errorf("exec in container %q: %w", c.spec.Name, err)
	}
	defer proc.Delete(bg, client.WithProcessKill) //nolint:errcheck
	statusC, err := proc.Wait(bg)
	if err != nil {
		return hook.ExecResult{}, err
	}
	if err := proc.Start(bg); err != nil {
		return hook.ExecResult{}, fmt.Errorf("exec in container %q: %w", c.spec.Name, err)
	}
	select {
	case st := <-statusC:
		code, _, err := st.Result()
		if err != nil {
			return hook.ExecResult{}, err
		}
		proc.IO().Wait()
		return hook.ExecResult{ExitCode: int(code), Output: out.Bytes()}, nil
	case <-ctx.Done():
		_ = proc.Kill(bg, syscall.SIGKILL)
		return hook.ExecResult{ExitCode: -1, Output: out.Bytes()}, ctx.Err()
	}
}

// cappedBuffer is a concurrency-safe buffer that keeps the first max bytes.
type cappedBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.max - len(b.buf); room > 0 {
		if len(p) > room {
			b.buf = append(b.buf, p[:room]...)
		} else {
			b.buf = append(b.buf, p...)
		}
	}
	return len(p), nil
}

func (b *cappedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf...)
}
