package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/layout"

	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/containerd/errdefs"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/internal/sandboxns"
	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/ocibuild"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// A pod with ShareProcessNamespace has a pause process: PID 1 of the pod's PID namespace, which
// every container joins. It is a containerd task like the containers (so it lives as long as the
// pod, whatever happens to the process that started it, and containerd's labels find it again),
// created and started before any container, and deleted after every container's task. Its PID
// namespace is pinned in the pod's ns directory with the other namespaces: containers join it by
// that path, which can never come to name another process's namespace. Other pods have no pause.
//
// The pause is catatonit in pause mode ("catatonit -P", podman's infra process): statically
// linked, it runs from an empty root directory in the pod's dir with only its own binary
// bind-mounted, as user 65535 with no capabilities. It reaps the pod's orphaned processes (the
// kernel reparents them to the namespace's PID 1) and exits on SIGTERM or SIGINT; it is
// stopped with SIGKILL, which takes every process left in the namespace with it.

// LabelKindPause is the LabelKind value of a pod's pause container.
const LabelKindPause = "pause"

// PauseNameInPod is the LabelContainer value of the pause container (not a valid container
// name, so it never collides with one).
const PauseNameInPod = "POD"

// pause is a pod's pause container and task. Its fields are owned by the pod's loop.
type pause struct {
	id   string
	ctr  tasks.Container // nil until created, and once deleted
	task tasks.Task      // nil until created, and once deleted
}

// pauseRoot is the pause's root directory: empty but for the mount points runc makes.
func (s *Sandbox) pauseRoot() string { return filepath.Join(s.dir, "pause") }

// PIDNSPath is the pinned PID namespace the containers share ("" unless ShareProcessNamespace).
func (s *Sandbox) PIDNSPath() string { return s.pidNS }

// startPause creates and starts the pod's pause task and pins its PID namespace. On failure
// what it made stays for stopPause to delete.
func (p *Worker) startPause(ctx context.Context) error {
	r := p.rt
	bin, err := r.PauseBinary()
	if err != nil {
		return err
	}
	// Not cancellable, as a container's create (see newInstance): a stop waits for it.
	ctx = context.WithoutCancel(ctx)
	s := p.sandbox
	if err := os.Mkdir(s.pauseRoot(), 0o755); err != nil {
		return fmt.Errorf("pause root: %w", err)
	}
	labels := map[string]string{}
	for k, v := range p.spec.Labels {
		labels[k] = v
	}
	labels[LabelPod] = p.name
	labels[LabelPodUID] = p.uid
	labels[layout.LabelStateDir] = p.rt.Cfg.StateDir
	labels[labelNamespace] = p.spec.Namespace
	labels[LabelContainer] = PauseNameInPod
	labels[LabelKind] = LabelKindPause
	labels[LabelAttempt] = "0"
	// Recorded for the pod's stop signals, as the containers' are; the stop kills the pause at once:
	// it is stopped last, when nothing is left to stop gracefully.
	labels[labelStopSignal] = strconv.Itoa(int(syscall.SIGKILL))
	ctr, err := r.Tasks.NewPause(ctx, p.pause.id, p.handler, labels, p.pauseSpecOpts(bin))
	if err != nil {
		return fmt.Errorf("create pause container: %w", err)
	}
	p.do(func() { p.pause.ctr = ctr })
	task, err := ctr.NewTask(ctx, tasks.Output{Stdout: io.Discard, Stderr: io.Discard, FIFODir: s.fifoDir()})
	if err != nil {
		if cerr := ctr.SweepCgroup(); cerr != nil {
			p.log.Warn("failed pause create left its cgroup", "err", cerr)
		}
		return fmt.Errorf("create pause task: %w", err)
	}
	p.do(func() { p.pause.task = task })
	if err := task.Start(ctx); err != nil {
		return fmt.Errorf("start pause: %w", err)
	}
	path, err := r.Tasks.PinProcessNamespace(filepath.Join(s.dir, "ns"), sandboxns.PID, int(task.PID()))
	if err != nil {
		return fmt.Errorf("pin the pause's PID namespace: %w", err)
	}
	s.pidNS = path // before the containers' preparations start (see startSequence)
	exited, err := task.Wait(p.watchCtx)
	if err != nil {
		return fmt.Errorf("wait pause: %w", err)
	}
	go p.watchPause(exited)
	p.log.Debug("pause running", "id", p.pause.id, "pid", task.PID())
	return nil
}

// watchPause fails the pod if its pause exits before a stop: its PID namespace, and every
// process in it, is gone, and no container could join it again. (The kubelet recreates the
// sandbox and restarts the containers; podlife stops the pod, which ends Failed with reason
// SandboxChanged.) While containerd is away the watch waits for it, then follows the task
// again; the Runtime's Close ends it.
func (p *Worker) watchPause(exited <-chan ctrd.ExitStatus) {
	ctx := p.watchCtx
	var st ctrd.ExitStatus
	for {
		st = <-exited
		if st.Error() == nil {
			break
		}
		if ctx.Err() != nil || p.rt.WaitConnected(ctx) != nil {
			return // the Runtime detached: the pause may well still run
		}
		var ctr tasks.Container
		p.do(func() { ctr = p.pause.ctr })
		if ctr == nil {
			return // deleted by a stop
		}
		var task tasks.Task
		err := p.rt.Retry(ctx, func() (err error) {
			if task, err = ctr.LoadTask(ctx); err != nil {
				return err
			}
			exited, err = task.Wait(ctx)
			return err
		})
		if errdefs.IsNotFound(err) {
			st = *ctrd.NewExitStatus(ctrd.UnknownExitStatus, time.Time{}, nil)
			break // gone while containerd was away
		}
		if err != nil {
			p.log.Warn("pause no longer watched", "err", err)
			return
		}
		p.do(func() {
			if p.pause.task != nil {
				p.pause.task = task
			}
		})
	}
	if p.rt.IsClosed() {
		return
	}
	msg := fmt.Sprintf("the pod's pause process exited (code %d): its PID namespace is gone with every process in it; stopping the pod", st.ExitCode())
	failed := false
	p.updateIf(func() bool {
		if p.stopping {
			return false
		}
		p.failReason = ReasonSandboxChanged
		p.reason, p.message = ReasonSandboxChanged, msg
		failed = true
		return true
	})
	if !failed {
		return
	}
	p.log.Warn("pause exited", "code", st.ExitCode())
	p.emit("", EventWarning, ReasonSandboxChanged, msg)
	p.stopWith(p.lifeCtx, GracePeriod(&p.spec), true, nil)
}

// pauseSpecOpts is the pause's OCI spec, on top of containerd's default: a new PID namespace,
// the pod's network, UTS and IPC namespaces, no privilege.
func (p *Worker) pauseSpecOpts(bin string) []oci.SpecOpts {
	s := p.sandbox
	opts := []oci.SpecOpts{
		oci.WithRootFSPath(s.pauseRoot()),
		oci.WithProcessArgs("/catatonit", "-P"),
		oci.WithProcessCwd("/"),
		oci.WithMounts([]specs.Mount{ocibuild.BindMount(bin, "/catatonit", true)}),
		oci.WithUIDGID(65535, 65535),
		oci.WithCapabilities(nil),
		oci.WithAmbientCapabilities(nil),
		oci.WithNoNewPrivileges,
	}
	opts = append(opts, p.sharedNamespaceOpts()...)
	if g := p.shimGroup(); g != "" {
		opts = append(opts, oci.WithAnnotations(map[string]string{annotationShimGroup: g}))
	}
	return opts
}

// stopPause kills and deletes the pause task and container (and the cgroup runc may leave).
// It is idempotent; the pod's containers' tasks must be deleted first.
func (p *Worker) stopPause(ctx context.Context) error {
	if p.pause == nil {
		return nil
	}
	var ctr tasks.Container
	var task tasks.Task
	p.do(func() { ctr, task = p.pause.ctr, p.pause.task })
	var errs []error
	if task != nil {
		// The delete kills the process (SIGKILL) and waits for it.
		err := p.rt.Retry(ctx, func() error { return task.Delete(ctx) })
		if err != nil && !errdefs.IsNotFound(err) && !ctr.TaskGone(ctx) {
			errs = append(errs, fmt.Errorf("delete pause task: %w", err))
		} else {
			p.do(func() { p.pause.task = nil })
			if err := ctr.RemoveCgroup(); err != nil {
				errs = append(errs, fmt.Errorf("pause: cgroup left behind: %w", err))
			}
		}
	}
	if ctr != nil && len(errs) == 0 {
		err := p.rt.Retry(ctx, func() error { return ctr.Delete(ctx) })
		if err != nil && !errdefs.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete pause container: %w", err))
		} else {
			p.do(func() { p.pause.ctr = nil })
		}
	}
	return errors.Join(errs...)
}
