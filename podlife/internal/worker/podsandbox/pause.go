package podsandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
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

// pauseRoot is the pause's root directory: empty but for the mount points runc makes.
func (s *Sandbox) pauseRoot() string { return filepath.Join(s.dir, "pause") }

// PIDNSPath is the pinned PID namespace the containers share ("" unless ShareProcessNamespace).
func (s *Sandbox) PIDNSPath() string { return s.pidNS }

// Pause is the pod's pause to make.
type Pause struct {
	ID      string
	Handler tasks.Class       // the containerd runtime of the pod (spec.RuntimeClassName)
	Binary  string            // catatonit, bind-mounted in the pause's root
	Labels  map[string]string // see PodLabels.Pause
	// Namespaces join the pod's network, UTS and IPC namespaces (or the host's).
	Namespaces []oci.SpecOpts
	ShimGroup  string // the pod's shim group ("" for a shim of its own)
}

// PauseState runs f on the pod's loop, which owns the pause's containerd handles (nil: not
// made, or deleted), and reports whether it ran: the pause's sequences read and record them
// only through it (the worker gives its loop's do).
type PauseState func(f func(ctr *tasks.Container, task *tasks.Task)) bool

// StartPause creates and starts the pod's pause task, pins its PID namespace, and returns the
// task's exit, followed under watch (see FollowPause). It records the pause's container, then
// its task, through state as soon as each exists: on failure what was made stays for StopPause
// to delete. The calls are not cancellable, as a container's create: a stop waits for them.
func (s *Sandbox) StartPause(ctx, watch context.Context, pc Pause, state PauseState, log *slog.Logger) (<-chan ctrd.ExitStatus, error) {
	ctx = context.WithoutCancel(ctx)
	if err := os.Mkdir(s.pauseRoot(), 0o755); err != nil {
		return nil, fmt.Errorf("pause root: %w", err)
	}
	ctr, err := s.tasks.NewPause(ctx, pc.ID, pc.Handler, pc.Labels, s.pauseSpecOpts(pc))
	if err != nil {
		return nil, fmt.Errorf("create pause container: %w", err)
	}
	state(func(c *tasks.Container, _ *tasks.Task) { *c = ctr })
	task, err := ctr.NewTask(ctx, tasks.Output{Stdout: io.Discard, Stderr: io.Discard, FIFODir: s.FIFODir()})
	if err != nil {
		if cerr := ctr.SweepCgroup(); cerr != nil {
			log.Warn("failed pause create left its cgroup", "err", cerr)
		}
		return nil, fmt.Errorf("create pause task: %w", err)
	}
	state(func(_ *tasks.Container, t *tasks.Task) { *t = task })
	if err := task.Start(ctx); err != nil {
		return nil, fmt.Errorf("start pause: %w", err)
	}
	path, err := s.tasks.PinProcessNamespace(s.nsDir(), sandboxns.PID, int(task.PID()))
	if err != nil {
		return nil, fmt.Errorf("pin the pause's PID namespace: %w", err)
	}
	s.pidNS = path // before the containers' preparations start (see the worker's startSequence)
	exited, err := task.Wait(watch)
	if err != nil {
		return nil, fmt.Errorf("wait pause: %w", err)
	}
	log.Debug("pause running", "id", pc.ID, "pid", task.PID())
	return exited, nil
}

// pauseSpecOpts is the pause's OCI spec, on top of containerd's default: a new PID namespace,
// the pod's network, UTS and IPC namespaces, no privilege.
func (s *Sandbox) pauseSpecOpts(pc Pause) []oci.SpecOpts {
	opts := []oci.SpecOpts{
		oci.WithRootFSPath(s.pauseRoot()),
		oci.WithProcessArgs("/catatonit", "-P"),
		oci.WithProcessCwd("/"),
		oci.WithMounts([]specs.Mount{ocibuild.BindMount(pc.Binary, "/catatonit", true)}),
		oci.WithUIDGID(65535, 65535),
		oci.WithCapabilities(nil),
		oci.WithAmbientCapabilities(nil),
		oci.WithNoNewPrivileges,
	}
	opts = append(opts, pc.Namespaces...)
	if pc.ShimGroup != "" {
		opts = append(opts, oci.WithAnnotations(map[string]string{AnnotationShimGroup: pc.ShimGroup}))
	}
	return opts
}

// Conn is the connection to containerd as the pause's watch and stop use it (see the worker's
// Host): Retry runs call until it succeeds or fails for another reason than a lost connection;
// WaitConnected waits until containerd answers.
type Conn struct {
	Retry         func(ctx context.Context, call func() error) error
	WaitConnected func(ctx context.Context) error
}

// FollowPause waits for the pause's exit on exited, following its task again whenever
// containerd went away (its container read from state: nil once a stop deleted it; the task
// loaded again recorded there, unless a stop deleted it meanwhile). It returns the exit, or ok
// false if the watch ended without one (ctx ended, the Runtime detached, the pause was deleted,
// or err: its task could not be followed again); a pause gone while containerd was away exits
// with an unknown status.
func FollowPause(ctx context.Context, conn Conn, exited <-chan ctrd.ExitStatus, state PauseState) (st ctrd.ExitStatus, ok bool, err error) {
	for {
		st = <-exited
		if st.Error() == nil {
			return st, true, nil
		}
		if ctx.Err() != nil || conn.WaitConnected(ctx) != nil {
			return st, false, nil // the Runtime detached: the pause may well still run
		}
		var ctr tasks.Container
		state(func(c *tasks.Container, _ *tasks.Task) { ctr = *c })
		if ctr == nil {
			return st, false, nil // deleted by a stop
		}
		var task tasks.Task
		err := conn.Retry(ctx, func() (err error) {
			if task, err = ctr.LoadTask(ctx); err != nil {
				return err
			}
			exited, err = task.Wait(ctx)
			return err
		})
		if errdefs.IsNotFound(err) {
			return *ctrd.NewExitStatus(ctrd.UnknownExitStatus, time.Time{}, nil), true, nil // gone while containerd was away
		}
		if err != nil {
			return st, false, err
		}
		state(func(_ *tasks.Container, t *tasks.Task) {
			if *t != nil {
				*t = task
			}
		})
	}
}

// StopPause kills and deletes the pause's task (and the cgroup runc may leave), then its
// container, as state has them (either may be nil); the pod's containers' tasks must be deleted
// first. It records in state what it deleted or found gone; what is left is deleted by the
// next call.
func StopPause(ctx context.Context, retry func(context.Context, func() error) error, state PauseState) error {
	var ctr tasks.Container
	var task tasks.Task
	state(func(c *tasks.Container, t *tasks.Task) { ctr, task = *c, *t })
	var errs []error
	taskGone, ctrGone := false, false
	if task != nil {
		// The delete kills the process (SIGKILL) and waits for it.
		err := retry(ctx, func() error { return task.Delete(ctx) })
		if err != nil && !errdefs.IsNotFound(err) && !ctr.TaskGone(ctx) {
			errs = append(errs, fmt.Errorf("delete pause task: %w", err))
		} else {
			taskGone = true
			if err := ctr.RemoveCgroup(); err != nil {
				errs = append(errs, fmt.Errorf("pause: cgroup left behind: %w", err))
			}
		}
	}
	if ctr != nil && len(errs) == 0 {
		err := retry(ctx, func() error { return ctr.Delete(ctx) })
		if err != nil && !errdefs.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete pause container: %w", err))
		} else {
			ctrGone = true
		}
	}
	state(func(c *tasks.Container, t *tasks.Task) {
		if taskGone {
			*t = nil
		}
		if ctrGone {
			*c = nil
		}
	})
	return errors.Join(errs...)
}
