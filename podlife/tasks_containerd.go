package podlife

import (
	"context"
	"fmt"
	"log/slog"
	"syscall"
	"time"

	"github.com/containerd/containerd/v2/pkg/cio"
	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/containerd/errdefs"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/internal/sandboxns"
	"github.com/podlife/podlife/podlife/internal/cgroupfs"
	"github.com/podlife/podlife/podlife/internal/ctrd"
)

// ctrdTasks is the taskRuntime of a Runtime connected to containerd: containerd's part goes
// through the Runtime's ctrd.Client (the only user of containerd's client), the host's part
// (cgroups, pinned namespaces, shim sockets) is done here; the crash points are hit here.
type ctrdTasks struct {
	r *Runtime // its connection, config and pull
}

var _ taskRuntime = ctrdTasks{}

func (t ctrdTasks) createLease(ctx context.Context, id string, labels map[string]string) error {
	err := t.r.ctrd.CreateLease(ctx, id, labels)
	failpoint.Hit("run.lease")
	return err
}

func (t ctrdTasks) deleteLease(ctx context.Context, id string) error {
	// Synchronous: what the lease held (snapshots of containers whose create was cut, views)
	// is gone when Remove returns, not at containerd's next garbage collection.
	return t.r.ctrd.DeleteLease(ctx, id)
}

func (t ctrdTasks) localImage(ctx context.Context, ref string) (podImage, bool, error) {
	img, found, err := t.r.ctrd.LocalImage(ctx, ref)
	if err != nil || !found {
		return podImage{}, found, err
	}
	return ctrdImage(img), true, nil
}

func (t ctrdTasks) pullImage(ctx context.Context, ref string, creds []RegistryCredential) (podImage, error) {
	img, err := t.r.pull(ctx, ref, creds)
	if err != nil {
		return podImage{}, err
	}
	return ctrdImage(img), nil
}

func ctrdImage(img ctrd.Image) podImage {
	return podImage{name: img.Name, id: img.ID, size: img.Size, ctrd: img}
}

func (t ctrdTasks) imageConfig(ctx context.Context, img podImage) (ocispec.Image, error) {
	return t.r.ctrd.Config(ctx, img.ctrd)
}

func (t ctrdTasks) mountImage(ctx context.Context, img podImage, key, target string) error {
	return t.r.ctrd.MountView(ctx, img.ctrd, key, target)
}

func (t ctrdTasks) removeView(ctx context.Context, key string) error {
	return t.r.ctrd.RemoveView(ctx, key)
}

func (t ctrdTasks) newContainer(ctx context.Context, id string, rt ctrRuntime, img podImage, labels map[string]string, cgroup string, opts []oci.SpecOpts) (ctrHandle, error) {
	// The image's config first (ctrd.NewContainer puts it first), then the cgroup, the
	// container's options, the runtime class's.
	specOpts := append(append([]oci.SpecOpts{oci.WithCgroup(cgroup)}, opts...), rt.specOpts()...)
	ctr, err := t.r.ctrd.NewContainer(ctx, id, rt.runtime(), &img.ctrd, labels, specOpts)
	if err != nil {
		return nil, err
	}
	failpoint.Hit("run.container-created") // @2: between two containers' creates
	return ctrdContainer{ctr: ctr, cgroup: cgroup}, nil
}

func (ctrdTasks) pinNamespaces(dir string, kinds []sandboxns.Kind, hostname string) (map[sandboxns.Kind]string, error) {
	return sandboxns.Create(dir, kinds, hostname)
}

func (ctrdTasks) unpinNamespaces(dir string) error { return sandboxns.Remove(dir) }

func (t ctrdTasks) socketAnswers() bool { return canConnect(t.r.address) }

func (t ctrdTasks) shimAnswers(group string) bool {
	return canConnect(shimSocketPath(t.r.address, t.r.cfg.Namespace, group))
}

func (t ctrdTasks) removeStaleShim(group string, log *slog.Logger) {
	removeStaleShimSocket(shimSocketPath(t.r.address, t.r.cfg.Namespace, group), log)
}

func (t ctrdTasks) containers(ctx context.Context, match map[string]string, has ...string) ([]foundContainer, error) {
	ctrs, err := t.r.ctrd.Containers(ctx, match, has...)
	if err != nil {
		return nil, err
	}
	out := make([]foundContainer, 0, len(ctrs))
	for _, ctr := range ctrs {
		out = append(out, foundContainer{id: ctr.ID(), labels: ctr.Labels(), image: ctr.Image(),
			handle: func(cgroup string) ctrHandle { return ctrdContainer{ctr: ctr, cgroup: cgroup} }})
	}
	return out, nil
}

func (t ctrdTasks) loadContainer(ctx context.Context, id, cgroup string) (ctrHandle, error) {
	ctr, err := t.r.ctrd.LoadContainer(ctx, id)
	if err != nil {
		return nil, err
	}
	return ctrdContainer{ctr: ctr, cgroup: cgroup}, nil
}

func (t ctrdTasks) sample(ctx context.Context, ids []string) (map[string]ctrd.Sample, error) {
	return t.r.ctrd.Sample(ctx, ids)
}

func (t ctrdTasks) leases(ctx context.Context, key string) ([]foundLease, error) {
	all, err := t.r.ctrd.Leases(ctx, key)
	if err != nil {
		return nil, err
	}
	out := make([]foundLease, 0, len(all))
	for _, l := range all {
		out = append(out, foundLease{id: l.ID, labels: l.Labels})
	}
	return out, nil
}

// ctrdContainer is a containerd container and its cgroup path (containerd's default layout,
// cgroupfs driver).
type ctrdContainer struct {
	ctr    *ctrd.Container
	cgroup string
}

func (c ctrdContainer) newTask(ctx context.Context, out taskOutput) (taskHandle, error) {
	creator := cio.NewCreator(cio.WithStreams(nil, out.stdout, out.stderr), cio.WithFIFODir(out.fifoDir))
	if out.logger != "" {
		creator = cio.BinaryIO(out.logger, out.loggerArgs)
	}
	var tee *teeIO
	if out.attach != nil {
		// The shim opens the output FIFOs for writing with a blocking open: a reader must be
		// there until it has them (it then holds a read end of its own, so the output waits in
		// the FIFO for the copy to the log and the clients, teeAttach).
		tee = &teeIO{cfg: shimFIFOs(*out.attach), done: make(chan struct{})}
		readers, err := openFIFOReaders(tee.cfg.Stdout, tee.cfg.Stderr)
		if err != nil {
			return nil, err
		}
		defer closeAll(readers)
		creator = func(string) (cio.IO, error) { return tee, nil }
	}
	task, err := c.ctr.NewTask(ctx, creator)
	if err != nil {
		return nil, err
	}
	if tee != nil {
		if err := teeAttach(tee.cfg, *out.attach, out.stdout, out.stderr, out.stopCopy, tee.done); err != nil {
			close(tee.done)
			_ = task.Delete(context.WithoutCancel(ctx))
			return nil, fmt.Errorf("attach: copy the output: %w", err)
		}
	}
	failpoint.Hit("run.task-created")
	return ctrdTask{task: task}, nil
}

func (c ctrdContainer) loadTask(ctx context.Context) (taskHandle, error) {
	task, err := c.ctr.Task(ctx)
	if err != nil {
		return nil, err
	}
	return ctrdTask{task: task}, nil
}

func (c ctrdContainer) taskGone(ctx context.Context) bool {
	_, err := c.ctr.Task(ctx)
	return errdefs.IsNotFound(err)
}

func (c ctrdContainer) processSpec(ctx context.Context) (*specs.Process, error) {
	return c.ctr.ProcessSpec(ctx)
}

func (c ctrdContainer) delete(ctx context.Context) error {
	defer failpoint.Hit("remove.container-deleted")
	return c.ctr.Delete(ctx)
}

func (c ctrdContainer) purge(ctx context.Context) error { return c.ctr.Purge(ctx) }

func (c ctrdContainer) oomKilled() bool     { return cgroupfs.OOMKilled(c.cgroup) }
func (c ctrdContainer) removeCgroup() error { return cgroupfs.Remove(c.cgroup) }
func (c ctrdContainer) sweepCgroup() error  { return cgroupfs.Sweep(c.cgroup) }

// ctrdTask is a containerd task.
type ctrdTask struct {
	task *ctrd.Task
}

func (t ctrdTask) wait(ctx context.Context) (<-chan ctrd.ExitStatus, error) {
	return t.task.Wait(ctx)
}

func (t ctrdTask) start(ctx context.Context) error {
	defer failpoint.Hit("start.task-started") // @2: between two containers' starts
	return t.task.Start(ctx)
}

func (t ctrdTask) pid() uint32 { return t.task.Pid() }

// waitOutput waits until this process has copied all of the task's output (see outputWaiter);
// a wait that times out is left to end with the task's deletion.
func (t ctrdTask) waitOutput(timeout time.Duration) bool { return t.task.WaitOutput(timeout) }

func (t ctrdTask) kill(ctx context.Context, sig syscall.Signal, all bool) error {
	return t.task.Kill(ctx, sig, all)
}

func (t ctrdTask) status(ctx context.Context) (ctrd.Status, error) { return t.task.Status(ctx) }

func (t ctrdTask) delete(ctx context.Context) error {
	err := t.task.Delete(ctx)
	failpoint.Hit("task.deleted")
	return err
}

func (t ctrdTask) exec(ctx, bg context.Context, ps specs.Process, argv []string, streams ExecIO, fifoDir string) (int, error) {
	return execProcess(ctx, bg, t.task, ps, argv, streams, cio.WithFIFODir(fifoDir))
}

func (t ctrdTask) resize(ctx context.Context, w, h uint32) error { return t.task.Resize(ctx, w, h) }
