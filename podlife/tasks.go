package podlife

import (
	"context"
	"io"
	"log/slog"
	"syscall"

	"github.com/containerd/containerd/v2/pkg/cio"
	"github.com/containerd/containerd/v2/pkg/oci"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/internal/sandboxns"
	"github.com/podlife/podlife/podlife/internal/ctrd"
)

// The seam under the pod supervisor: everything a pod needs from containerd and from the host's
// kernel (leases, images, containers and their tasks, exec, cgroups, pinned namespaces) goes
// through taskRuntime and the handles it returns. The supervision rules (start order, hooks,
// restarts, the stop sequence, Close) live above it and never call containerd themselves, so
// they can be tested on a fake (tasks_fake_internal_test.go) without root. Adoption, the
// startup GC and the paths on pods with no live manager find containers, tasks and leases
// through it too (whole adoptions run on the fake: adopt_fake_internal_test.go). ctrdTasks (tasks_containerd.go) is the implementation on containerd: its
// containerd calls go through package ctrd, the only user of containerd's client. The network
// is already behind cni.Network.
//
// Errors are containerd's (errdefs classes, gRPC codes): the supervisor's retry on a lost
// connection and its NotFound checks work on them unchanged.
type taskRuntime interface {
	// createLease creates the lease that holds a pod's snapshots and images.
	createLease(ctx context.Context, id string, labels map[string]string) error
	// deleteLease deletes it; an error wrapping errdefs.ErrNotFound if it does not exist.
	deleteLease(ctx context.Context, id string) error
	// localImage returns the image ref (a full containerd name) if it is present, unpacked for
	// the runtime's snapshotter; found is false (and err nil) if it is not present.
	localImage(ctx context.Context, ref string) (img podImage, found bool, err error)
	// pullImage pulls and unpacks ref with the given credentials.
	pullImage(ctx context.Context, ref string, creds []RegistryCredential) (podImage, error)
	// imageConfig reads an image's config.
	imageConfig(ctx context.Context, img podImage) (ocispec.Image, error)
	// mountImage creates a read-only view snapshot key of img's unpacked filesystem (or takes
	// the one that exists) and mounts it on the directory target.
	mountImage(ctx context.Context, img podImage, key, target string) error
	// removeView removes the snapshot key; one that does not exist is not an error.
	removeView(ctx context.Context, key string) error
	// newContainer creates a container (its snapshot and OCI spec: the image's config, then
	// opts) with labels. No task exists yet.
	// rt is the containerd runtime and its options (the pod's runtime class).
	newContainer(ctx context.Context, id string, rt ctrRuntime, img podImage, labels map[string]string, cgroup string, opts []oci.SpecOpts) (ctrHandle, error)
	// pinNamespaces creates and pins the pod's namespaces under dir (see sandboxns.Create).
	pinNamespaces(dir string, kinds []sandboxns.Kind, hostname string) (map[sandboxns.Kind]string, error)
	// newPause creates a pod's pause container (no image: its spec's root is a host directory).
	newPause(ctx context.Context, id string, rt ctrRuntime, labels map[string]string, opts []oci.SpecOpts) (ctrHandle, error)
	// pinProcessNamespace pins the namespace of kind k of process pid under dir (see
	// sandboxns.PinProcess).
	pinProcessNamespace(dir string, k sandboxns.Kind, pid int) (string, error)
	// pinContainerNamespace pins it as pinProcessNamespace does, then checks that what it
	// pinned is the namespace of a process in the cgroup at cgroup (a PID may be reused the
	// moment its process is reaped): else it unpins it and fails.
	pinContainerNamespace(dir string, k sandboxns.Kind, pid int, cgroup string) (string, error)
	// unpinNamespaces removes them (see sandboxns.Remove).
	unpinNamespaces(dir string) error
	// socketAnswers reports whether anything accepts connections on containerd's socket (a
	// cheap local check, no request to containerd).
	socketAnswers() bool
	// shimAnswers reports whether the shim of a shim group (one per pod, see withShim) answers
	// on its socket.
	shimAnswers(group string) bool
	// removeStaleShim removes the socket of a shim group whose tasks are all deleted if no
	// shim serves it any more (see Pod.removeStaleShimSocket).
	removeStaleShim(group string, log *slog.Logger)
	// containers lists the containers whose labels have exactly the values of match and that
	// have each label of has, whatever its value: how adoption, the startup GC and the
	// unmanaged paths find what a pod runs.
	containers(ctx context.Context, match map[string]string, has ...string) ([]foundContainer, error)
	// loadContainer returns the container id, its cgroup at cgroup (an error wrapping
	// errdefs.ErrNotFound if there is no such container).
	loadContainer(ctx context.Context, id, cgroup string) (ctrHandle, error)
	// leases lists the leases that have the label key.
	leases(ctx context.Context, key string) ([]foundLease, error)
	// sample reads the state of the tasks of the containers ids and the metrics of those
	// that run (see ctrd.Client.Sample); a container with no task is not in the result.
	sample(ctx context.Context, ids []string) (map[string]ctrd.Sample, error)
}

// foundContainer is a container found by taskRuntime.containers.
type foundContainer struct {
	id     string
	labels map[string]string
	image  string // the name of the image it was created from
	// handle returns its handle, its cgroup at cgroup.
	handle func(cgroup string) ctrHandle
}

// foundLease is a lease found by taskRuntime.leases.
type foundLease struct {
	id     string
	labels map[string]string
}

// podImage is an image a container runs.
type podImage struct {
	name string // containerd's image name
	id   string // the digest of its target
	size int64  // its size, when pulled (0 if unknown)
	ctrd ctrd.Image
}

// taskOutput is where a task's stdout and stderr go: to a logger program that the shim runs
// beside the container (logger set), else through FIFOs in fifoDir to stdout and stderr,
// copied by this process.
type taskOutput struct {
	logger     string            // absolute path of the logger binary
	loggerArgs map[string]string // its arguments (the log URI's query)

	stdout, stderr io.Writer
	fifoDir        string

	// attach, if set, names the clients' FIFOs of an interactive ephemeral container (see
	// teeAttach): the shim writes to FIFOs of its own, which this process copies to them and
	// to stdout and stderr (its log).
	attach *cio.Config
	// stopCopy, with attach, ends this process's copy of the output (see teeAttach).
	stopCopy <-chan struct{}
}

// ctrHandle is one containerd container (one instance of a pod's container).
type ctrHandle interface {
	// newTask creates its task (runc create): the process exists, not started, its output
	// going where out says.
	newTask(ctx context.Context, out taskOutput) (taskHandle, error)
	// taskGone reports whether the container is known to have no task any more.
	taskGone(ctx context.Context) bool
	// loadTask returns its existing task (an error wrapping errdefs.ErrNotFound if none).
	loadTask(ctx context.Context) (taskHandle, error)
	// processSpec returns the process part of its OCI spec.
	processSpec(ctx context.Context) (*specs.Process, error)
	// delete deletes the container and its snapshot.
	delete(ctx context.Context) error
	// oomKilled reports whether the kernel's OOM killer killed a process of its cgroup (read at
	// exit, before the task is deleted).
	oomKilled() bool
	// removeCgroup removes its cgroup if runc left it behind after the task's deletion.
	removeCgroup() error
	// sweepCgroup removes its cgroup in every hierarchy after a failed task create.
	sweepCgroup() error
	// purge deletes its task (killing its process) if it has one, then the container and its
	// snapshot; a task or container already gone is not an error. It is the delete of what no
	// supervisor follows (the startup GC, the sweep after a removal), and hits no crash point.
	purge(ctx context.Context) error
}

// taskHandle is a container's task: its main process.
type taskHandle interface {
	// wait returns a channel that gets the process's exit; ctx ending sends an ExitStatus with
	// ctx's error (the process may still run).
	wait(ctx context.Context) (<-chan ctrd.ExitStatus, error)
	// start starts the process.
	start(ctx context.Context) error
	// pid is the process's PID in the host's PID namespace (known once the task is created).
	pid() uint32
	// kill sends sig to the main process, or with all to every process of the container.
	kill(ctx context.Context, sig syscall.Signal, all bool) error
	// status returns the task's status.
	status(ctx context.Context) (ctrd.Status, error)
	// delete deletes the task, killing its process if it still runs.
	delete(ctx context.Context) error
	// exec runs argv as an extra process of the task with the process spec ps (its args
	// replaced) and returns its exit code; if ctx ends first the process is killed and the
	// code is -1. bg carries the calls that must not be cancelled half-way.
	exec(ctx, bg context.Context, ps specs.Process, argv []string, streams ExecIO, fifoDir string) (int, error)
	// resize sets the size of the main process's terminal (an attached container's).
	resize(ctx context.Context, w, h uint32) error
}
