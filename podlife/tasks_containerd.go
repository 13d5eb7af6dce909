package podlife

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/core/leases"
	"github.com/containerd/containerd/v2/core/mount"
	"github.com/containerd/containerd/v2/pkg/cio"
	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/containerd/errdefs"
	"github.com/opencontainers/image-spec/identity"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/internal/sandboxns"
)

// ctrdTasks is the taskRuntime of a Runtime connected to containerd.
type ctrdTasks struct {
	r *Runtime // its client, config and pull
}

var _ taskRuntime = ctrdTasks{}

func (t ctrdTasks) createLease(ctx context.Context, id string, labels map[string]string) error {
	_, err := t.r.client.LeasesService().Create(ctx, leases.WithID(id), leases.WithLabels(labels))
	failpoint.Hit("run.lease")
	return err
}

func (t ctrdTasks) deleteLease(ctx context.Context, id string) error {
	// Synchronous: what the lease held (snapshots of containers whose create was cut, views)
	// is gone when Remove returns, not at containerd's next garbage collection.
	return t.r.client.LeasesService().Delete(ctx, leases.Lease{ID: id}, leases.SynchronousDelete)
}

func (t ctrdTasks) localImage(ctx context.Context, ref string) (podImage, bool, error) {
	img, err := t.r.client.GetImage(ctx, ref)
	if errdefs.IsNotFound(err) {
		return podImage{}, false, nil
	}
	if err != nil {
		return podImage{}, false, err
	}
	snapshotter := t.r.cfg.Snapshotter
	if ok, _ := img.IsUnpacked(ctx, snapshotter); !ok {
		if err := img.Unpack(ctx, snapshotter); err != nil {
			return podImage{}, false, fmt.Errorf("unpack %s: %w", ref, err)
		}
	}
	return ctrdImage(img), true, nil
}

func (t ctrdTasks) pullImage(ctx context.Context, ref string, creds []RegistryCredential) (podImage, error) {
	img, err := t.r.pull(ctx, ref, creds)
	if err != nil {
		return podImage{}, err
	}
	pi := ctrdImage(img)
	pi.size, _ = img.Size(ctx)
	return pi, nil
}

func ctrdImage(img client.Image) podImage {
	return podImage{name: img.Name(), id: img.Target().Digest.String(), ctrd: img}
}

func (t ctrdTasks) imageConfig(ctx context.Context, img podImage) (ocispec.Image, error) {
	return img.ctrd.Spec(ctx)
}

func (t ctrdTasks) mountImage(ctx context.Context, img podImage, key, target string) error {
	diffIDs, err := img.ctrd.RootFS(ctx)
	if err != nil {
		return fmt.Errorf("read its layers: %w", err)
	}
	sn := t.r.client.SnapshotService(t.r.cfg.Snapshotter)
	mounts, err := sn.View(ctx, key, identity.ChainID(diffIDs).String())
	if errdefs.IsAlreadyExists(err) {
		mounts, err = sn.Mounts(ctx, key)
	}
	if err != nil {
		return fmt.Errorf("view snapshot: %w", err)
	}
	if err := mount.All(mounts, target); err != nil {
		return fmt.Errorf("mount view: %w", err)
	}
	return nil
}

func (t ctrdTasks) removeView(ctx context.Context, key string) error {
	err := t.r.client.SnapshotService(t.r.cfg.Snapshotter).Remove(ctx, key)
	if errdefs.IsNotFound(err) {
		return nil
	}
	return err
}

func (t ctrdTasks) newContainer(ctx context.Context, id string, rt ctrRuntime, img podImage, labels map[string]string, cgroup string, opts []oci.SpecOpts) (ctrHandle, error) {
	cfg := t.r.cfg
	ctr, err := t.r.client.NewContainer(ctx, id,
		client.WithImageName(img.name),
		client.WithSnapshotter(cfg.Snapshotter),
		client.WithNewSnapshot(id, img.ctrd),
		rt.opt(),
		client.WithNewSpec(append(append([]oci.SpecOpts{oci.WithImageConfig(img.ctrd), oci.WithCgroup(cgroup)}, opts...), rt.specOpts()...)...),
		client.WithContainerLabels(labels))
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

func (t ctrdTasks) containers(ctx context.Context, match map[string]string) ([]foundContainer, error) {
	fs := make([]string, 0, len(match))
	for k, v := range match {
		if v == "" {
			fs = append(fs, fmt.Sprintf("labels.%q", k))
		} else {
			fs = append(fs, labelFilter(k, v))
		}
	}
	sort.Strings(fs)
	ctrs, err := t.r.client.Containers(ctx, strings.Join(fs, ","))
	if err != nil {
		return nil, err
	}
	out := make([]foundContainer, 0, len(ctrs))
	for _, ctr := range ctrs {
		// The listing's record: no second request per container.
		info, err := ctr.Info(ctx, client.WithoutRefreshedMetadata)
		if err != nil {
			return nil, fmt.Errorf("container %s: %w", ctr.ID(), err)
		}
		out = append(out, foundContainer{id: ctr.ID(), labels: info.Labels, image: info.Image,
			handle: func(cgroup string) ctrHandle { return ctrdContainer{ctr: ctr, cgroup: cgroup} }})
	}
	return out, nil
}

func (t ctrdTasks) loadContainer(ctx context.Context, id, cgroup string) (ctrHandle, error) {
	ctr, err := t.r.client.LoadContainer(ctx, id)
	if err != nil {
		return nil, err
	}
	return ctrdContainer{ctr: ctr, cgroup: cgroup}, nil
}

func (t ctrdTasks) leases(ctx context.Context, key string) ([]foundLease, error) {
	all, err := t.r.client.LeasesService().List(ctx, fmt.Sprintf("labels.%q", key))
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
	ctr    client.Container
	cgroup string
}

func (c ctrdContainer) newTask(ctx context.Context, out taskOutput) (taskHandle, error) {
	creator := cio.NewCreator(cio.WithStreams(nil, out.stdout, out.stderr), cio.WithFIFODir(out.fifoDir))
	if out.logger != "" {
		creator = cio.BinaryIO(out.logger, out.loggerArgs)
	}
	if out.attach != nil {
		// The shim opens the output FIFOs for writing with a blocking open: a reader must be
		// there until it has them (it then holds a read end of its own, so the output waits in
		// the FIFO for a client).
		readers, err := openFIFOReaders(out.attach.Stdout, out.attach.Stderr)
		if err != nil {
			return nil, err
		}
		defer closeAll(readers)
		creator = attachCreator(*out.attach)
	}
	task, err := c.ctr.NewTask(ctx, creator)
	if err != nil {
		return nil, err
	}
	failpoint.Hit("run.task-created")
	return ctrdTask{task: task}, nil
}

func (c ctrdContainer) loadTask(ctx context.Context) (taskHandle, error) {
	task, err := c.ctr.Task(ctx, nil)
	if err != nil {
		return nil, err
	}
	return ctrdTask{task: task}, nil
}

func (c ctrdContainer) taskGone(ctx context.Context) bool {
	_, err := c.ctr.Task(ctx, nil)
	return errdefs.IsNotFound(err)
}

func (c ctrdContainer) processSpec(ctx context.Context) (*specs.Process, error) {
	spec, err := c.ctr.Spec(ctx)
	if err != nil {
		return nil, err
	}
	return spec.Process, nil
}

func (c ctrdContainer) delete(ctx context.Context) error {
	defer failpoint.Hit("remove.container-deleted")
	return c.ctr.Delete(ctx, client.WithSnapshotCleanup)
}

func (c ctrdContainer) purge(ctx context.Context) error {
	if task, err := c.ctr.Task(ctx, nil); err == nil {
		if _, err := task.Delete(ctx, client.WithProcessKill); err != nil && !errdefs.IsNotFound(err) {
			if _, terr := c.ctr.Task(ctx, nil); !errdefs.IsNotFound(terr) {
				return fmt.Errorf("delete task: %w", err)
			}
		}
	} else if !errdefs.IsNotFound(err) {
		return fmt.Errorf("task: %w", err)
	}
	if err := c.ctr.Delete(ctx, client.WithSnapshotCleanup); err != nil && !errdefs.IsNotFound(err) {
		return err
	}
	return nil
}

func (c ctrdContainer) oomKilled() bool     { return oomKilled(c.cgroup) }
func (c ctrdContainer) removeCgroup() error { return removeCgroup(c.cgroup) }
func (c ctrdContainer) sweepCgroup() error  { return sweepCgroup(c.cgroup) }

// ctrdTask is a containerd task.
type ctrdTask struct {
	task client.Task
}

func (t ctrdTask) wait(ctx context.Context) (<-chan client.ExitStatus, error) {
	return t.task.Wait(ctx)
}

func (t ctrdTask) start(ctx context.Context) error {
	defer failpoint.Hit("start.task-started") // @2: between two containers' starts
	return t.task.Start(ctx)
}

func (t ctrdTask) pid() uint32 { return t.task.Pid() }

// waitOutput waits until this process has copied all of the task's output (see outputWaiter);
// a wait that times out is left to end with the task's deletion.
func (t ctrdTask) waitOutput(timeout time.Duration) bool {
	io := t.task.IO()
	if io == nil {
		return false
	}
	done := make(chan struct{})
	go func() {
		io.Wait()
		close(done)
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-done:
		return true
	case <-timer.C:
		return false
	}
}

func (t ctrdTask) kill(ctx context.Context, sig syscall.Signal, all bool) error {
	if all {
		return t.task.Kill(ctx, sig, client.WithKillAll)
	}
	return t.task.Kill(ctx, sig)
}

func (t ctrdTask) status(ctx context.Context) (client.Status, error) { return t.task.Status(ctx) }

func (t ctrdTask) delete(ctx context.Context) error {
	_, err := t.task.Delete(ctx, client.WithProcessKill)
	failpoint.Hit("task.deleted")
	return err
}

func (t ctrdTask) exec(ctx, bg context.Context, ps specs.Process, argv []string, streams ExecIO, fifoDir string) (int, error) {
	return execProcess(ctx, bg, t.task, ps, argv, streams, cio.WithFIFODir(fifoDir))
}

func (t ctrdTask) resize(ctx context.Context, w, h uint32) error { return t.task.Resize(ctx, w, h) }
