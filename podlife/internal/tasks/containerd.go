package tasks

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"syscall"
	"time"

	"github.com/containerd/containerd/v2/pkg/cio"
	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/containerd/errdefs"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/internal/sandboxns"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/cgroupfs"
	"github.com/podlife/podlife/podlife/internal/ctrd"
)

// Containerd is the Runtime of a podlife Runtime connected to containerd: containerd's part
// goes through Client (the only user of containerd's client), the host's part (cgroups, pinned
// namespaces, shim sockets) is done here; the crash points are hit here.
type Containerd struct {
	Client    *ctrd.Client
	Address   string // containerd's socket (the shim sockets' paths derive from it)
	Namespace string // containerd's namespace of the podlife Runtime
	// Credentials, if set, is asked for the credentials of a registry host that a pull's own
	// credentials do not name (Config.Credentials).
	Credentials func(ctx context.Context, host string) (user, secret string, err error)
}

var (
	_ Runtime      = Containerd{}
	_ OutputWaiter = ctrdTask{}
)

// CreateLease implements Runtime.CreateLease.
func (t Containerd) CreateLease(ctx context.Context, id string, labels map[string]string) error {
	err := t.Client.CreateLease(ctx, id, labels)
	failpoint.Hit("run.lease")
	return err
}

// DeleteLease implements Runtime.DeleteLease.
func (t Containerd) DeleteLease(ctx context.Context, id string) error {
	// Synchronous: what the lease held (snapshots of containers whose create was cut, views)
	// is gone when Remove returns, not at containerd's next garbage collection.
	return t.Client.DeleteLease(ctx, id)
}

// LocalImage implements Runtime.LocalImage.
func (t Containerd) LocalImage(ctx context.Context, ref string) (Image, bool, error) {
	img, found, err := t.Client.LocalImage(ctx, ref)
	if err != nil || !found {
		return Image{}, found, err
	}
	return ctrdImage(img), true, nil
}

// PullImage implements Runtime.PullImage.
func (t Containerd) PullImage(ctx context.Context, ref string, creds []api.RegistryCredential) (Image, error) {
	img, err := t.pull(ctx, ref, creds)
	if err != nil {
		return Image{}, err
	}
	return ctrdImage(img), nil
}

func ctrdImage(img ctrd.Image) Image {
	return Image{Name: img.Name, ID: img.ID, Size: img.Size, ctrd: img}
}

// ImageConfig implements Runtime.ImageConfig.
func (t Containerd) ImageConfig(ctx context.Context, img Image) (ocispec.Image, error) {
	return t.Client.Config(ctx, img.ctrd)
}

// MountImage implements Runtime.MountImage.
func (t Containerd) MountImage(ctx context.Context, img Image, key, target string) error {
	return t.Client.MountView(ctx, img.ctrd, key, target)
}

// RemoveView implements Runtime.RemoveView.
func (t Containerd) RemoveView(ctx context.Context, key string) error {
	return t.Client.RemoveView(ctx, key)
}

// NewContainer implements Runtime.NewContainer.
func (t Containerd) NewContainer(ctx context.Context, id string, rt Class, img Image, labels map[string]string, cgroup string, opts []oci.SpecOpts) (Container, error) {
	// The image's config first (ctrd.NewContainer puts it first), then the cgroup, the
	// container's options, the runtime class's.
	specOpts := append(append([]oci.SpecOpts{oci.WithCgroup(cgroup)}, opts...), rt.SpecOpts...)
	ctr, err := t.Client.NewContainer(ctx, id, rt.Runtime, &img.ctrd, labels, specOpts)
	if err != nil {
		return nil, err
	}
	failpoint.Hit("run.container-created") // @2: between two containers' creates
	return ctrdContainer{ctr: ctr, cgroup: cgroup}, nil
}

// PinNamespaces implements Runtime.PinNamespaces.
func (Containerd) PinNamespaces(dir string, kinds []sandboxns.Kind, hostname string) (map[sandboxns.Kind]string, error) {
	return sandboxns.Create(dir, kinds, hostname)
}

// UnpinNamespaces implements Runtime.UnpinNamespaces.
func (Containerd) UnpinNamespaces(dir string) error { return sandboxns.Remove(dir) }

// SocketAnswers implements Runtime.SocketAnswers.
func (t Containerd) SocketAnswers() bool { return canConnect(t.Address) }

// ShimAnswers implements Runtime.ShimAnswers.
func (t Containerd) ShimAnswers(group string) bool {
	sock := ShimSocketPath(t.Address, t.Namespace, group)
	// Most calls are a start's poll before the shim has bound its socket (the shim's start
	// action binds and listens at once): a stat answers them without a connection attempt.
	if _, err := os.Lstat(sock); err != nil {
		return false
	}
	return canConnect(sock)
}

// RemoveStaleShim implements Runtime.RemoveStaleShim.
func (t Containerd) RemoveStaleShim(group string, log *slog.Logger) {
	RemoveStaleShimSocket(ShimSocketPath(t.Address, t.Namespace, group), log)
}

// Containers implements Runtime.Containers.
func (t Containerd) Containers(ctx context.Context, match map[string]string, has ...string) ([]Found, error) {
	ctrs, err := t.Client.Containers(ctx, match, has...)
	if err != nil {
		return nil, err
	}
	out := make([]Found, 0, len(ctrs))
	for _, ctr := range ctrs {
		out = append(out, Found{ID: ctr.ID(), Labels: ctr.Labels(), Image: ctr.Image(),
			Handle: func(cgroup string) Container { return ctrdContainer{ctr: ctr, cgroup: cgroup} }})
	}
	return out, nil
}

// LoadContainer implements Runtime.LoadContainer.
func (t Containerd) LoadContainer(ctx context.Context, id, cgroup string) (Container, error) {
	ctr, err := t.Client.LoadContainer(ctx, id)
	if err != nil {
		return nil, err
	}
	return ctrdContainer{ctr: ctr, cgroup: cgroup}, nil
}

// Sample implements Runtime.Sample.
func (t Containerd) Sample(ctx context.Context, ids []string) (map[string]ctrd.Sample, error) {
	return t.Client.Sample(ctx, ids)
}

// Leases implements Runtime.Leases.
func (t Containerd) Leases(ctx context.Context, key string) ([]Lease, error) {
	return t.Client.Leases(ctx, key)
}

// ctrdContainer is a containerd container and its cgroup path (containerd's default layout,
// cgroupfs driver).
type ctrdContainer struct {
	ctr    *ctrd.Container
	cgroup string
}

func (c ctrdContainer) NewTask(ctx context.Context, out Output) (Task, error) {
	creator := cio.NewCreator(cio.WithStreams(nil, out.Stdout, out.Stderr), cio.WithFIFODir(out.FIFODir))
	if out.Logger != "" {
		creator = cio.BinaryIO(out.Logger, out.LoggerArgs)
	}
	var tee *teeIO
	if out.Attach != nil {
		// The shim opens the output FIFOs for writing with a blocking open: a reader must be
		// there until it has them (it then holds a read end of its own, so the output waits in
		// the FIFO for the copy to the log and the clients, TeeAttach).
		tee = &teeIO{cfg: ShimFIFOs(*out.Attach), done: make(chan struct{})}
		readers, err := OpenFIFOReaders(tee.cfg.Stdout, tee.cfg.Stderr)
		if err != nil {
			return nil, err
		}
		defer CloseAll(readers)
		creator = func(string) (cio.IO, error) { return tee, nil }
	}
	task, err := c.ctr.NewTask(ctx, creator)
	if err != nil {
		return nil, err
	}
	if tee != nil {
		if err := TeeAttach(tee.cfg, *out.Attach, out.Stdout, out.Stderr, out.StopCopy, tee.done); err != nil {
			close(tee.done)
			_ = task.Delete(context.WithoutCancel(ctx))
			return nil, fmt.Errorf("attach: copy the output: %w", err)
		}
	}
	failpoint.Hit("run.task-created")
	return ctrdTask{task: task}, nil
}

func (c ctrdContainer) LoadTask(ctx context.Context) (Task, error) {
	task, err := c.ctr.Task(ctx)
	if err != nil {
		return nil, err
	}
	return ctrdTask{task: task}, nil
}

func (c ctrdContainer) TaskGone(ctx context.Context) bool {
	_, err := c.ctr.Task(ctx)
	return errdefs.IsNotFound(err)
}

func (c ctrdContainer) ProcessSpec(ctx context.Context) (*specs.Process, error) {
	return c.ctr.ProcessSpec(ctx)
}

func (c ctrdContainer) Delete(ctx context.Context) error {
	defer failpoint.Hit("remove.container-deleted")
	return c.ctr.Delete(ctx)
}

func (c ctrdContainer) Purge(ctx context.Context) error { return c.ctr.Purge(ctx) }

func (c ctrdContainer) OOMKilled() bool     { return cgroupfs.OOMKilled(c.cgroup) }
func (c ctrdContainer) RemoveCgroup() error { return cgroupfs.Remove(c.cgroup) }
func (c ctrdContainer) SweepCgroup() error  { return cgroupfs.Sweep(c.cgroup) }

// ctrdTask is a containerd task.
type ctrdTask struct {
	task *ctrd.Task
}

func (t ctrdTask) Wait(ctx context.Context) (<-chan ctrd.ExitStatus, error) {
	return t.task.Wait(ctx)
}

func (t ctrdTask) Start(ctx context.Context) error {
	defer failpoint.Hit("start.task-started") // @2: between two containers' starts
	return t.task.Start(ctx)
}

func (t ctrdTask) PID() uint32 { return t.task.Pid() }

// WaitOutput waits until this process has copied all of the task's output (see OutputWaiter);
// a wait that times out is left to end with the task's deletion.
func (t ctrdTask) WaitOutput(timeout time.Duration) bool { return t.task.WaitOutput(timeout) }

func (t ctrdTask) Kill(ctx context.Context, sig syscall.Signal, all bool) error {
	return t.task.Kill(ctx, sig, all)
}

func (t ctrdTask) Status(ctx context.Context) (ctrd.Status, error) { return t.task.Status(ctx) }

func (t ctrdTask) Delete(ctx context.Context) error {
	err := t.task.Delete(ctx)
	failpoint.Hit("task.deleted")
	return err
}

func (t ctrdTask) Exec(ctx, bg context.Context, ps specs.Process, argv []string, streams api.ExecIO, fifoDir string) (int, error) {
	return execProcess(ctx, bg, t.task, ps, argv, streams, cio.WithFIFODir(fifoDir))
}

func (t ctrdTask) Resize(ctx context.Context, w, h uint32) error { return t.task.Resize(ctx, w, h) }

// Relabeler is a Container whose labels can be set after its creation (containerd's are; a
// fake's need not be): a warm pool member's containers get their pod's name when it is taken.
type Relabeler interface {
	SetLabels(ctx context.Context, labels map[string]string) error
}

// SetLabels implements Relabeler.
func (c ctrdContainer) SetLabels(ctx context.Context, labels map[string]string) error {
	return c.ctr.SetLabels(ctx, labels)
}

// ImageDigester is a Runtime that reads the digest an image name points to without more
// (containerd's is; a fake's need not be): a warm pool member is checked against it at take.
type ImageDigester interface {
	ImageDigest(ctx context.Context, ref string) (digest string, found bool, err error)
}

// ImageDigest implements ImageDigester.
func (t Containerd) ImageDigest(ctx context.Context, ref string) (string, bool, error) {
	return t.Client.ImageDigest(ctx, ref)
}
