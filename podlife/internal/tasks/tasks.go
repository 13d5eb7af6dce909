package tasks

import (
	"context"
	"io"
	"log/slog"
	"syscall"
	"time"

	"github.com/containerd/containerd/v2/pkg/cio"
	"github.com/containerd/containerd/v2/pkg/oci"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/internal/sandboxns"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/ctrd"
)

// Runtime is everything a pod needs from containerd and from the host's kernel: leases,
// images, containers and their tasks (Container, Task), exec, cgroups, pinned namespaces.
// Containerd is the implementation; the tests' fake is another (see the package doc).
//
// Errors are containerd's (errdefs classes, gRPC codes): the supervisor's retry on a lost
// connection and its NotFound checks work on them unchanged.
type Runtime interface {
	// CreateLease creates the lease that holds a pod's snapshots and images.
	CreateLease(ctx context.Context, id string, labels map[string]string) error
	// DeleteLease deletes it; an error wrapping errdefs.ErrNotFound if it does not exist.
	DeleteLease(ctx context.Context, id string) error
	// LocalImage returns the image ref (a full containerd name) if it is present, unpacked for
	// the runtime's snapshotter; found is false (and err nil) if it is not present.
	LocalImage(ctx context.Context, ref string) (img Image, found bool, err error)
	// PullImage pulls and unpacks ref with the given credentials.
	PullImage(ctx context.Context, ref string, creds []api.RegistryCredential) (Image, error)
	// ImageConfig reads an image's config.
	ImageConfig(ctx context.Context, img Image) (ocispec.Image, error)
	// MountImage creates a read-only view snapshot key of img's unpacked filesystem (or takes
	// the one that exists) and mounts it on the directory target.
	MountImage(ctx context.Context, img Image, key, target string) error
	// RemoveView removes the snapshot key; one that does not exist is not an error.
	RemoveView(ctx context.Context, key string) error
	// NewContainer creates a container (its snapshot and OCI spec: the image's config, then
	// opts) with labels. No task exists yet.
	// rt is the containerd runtime and its options (the pod's runtime class).
	NewContainer(ctx context.Context, id string, rt Class, img Image, labels map[string]string, cgroup string, opts []oci.SpecOpts) (Container, error)
	// PinNamespaces creates and pins the pod's namespaces under dir (see sandboxns.Create).
	PinNamespaces(dir string, kinds []sandboxns.Kind, hostname string) (map[sandboxns.Kind]string, error)
	// NewPause creates a pod's pause container (no image: its spec's root is a host directory).
	NewPause(ctx context.Context, id string, rt Class, labels map[string]string, opts []oci.SpecOpts) (Container, error)
	// PinProcessNamespace pins the namespace of kind k of process pid under dir (see
	// sandboxns.PinProcess).
	PinProcessNamespace(dir string, k sandboxns.Kind, pid int) (string, error)
	// PinContainerNamespace pins it as PinProcessNamespace does, then checks that what it
	// pinned is the namespace of a process in the cgroup at cgroup (a PID may be reused the
	// moment its process is reaped): else it unpins it and fails.
	PinContainerNamespace(dir string, k sandboxns.Kind, pid int, cgroup string) (string, error)
	// UnpinNamespaces removes them (see sandboxns.Remove).
	UnpinNamespaces(dir string) error
	// SocketAnswers reports whether anything accepts connections on containerd's socket (a
	// cheap local check, no request to containerd).
	SocketAnswers() bool
	// ShimAnswers reports whether the shim of a shim group (one per pod, see withShim) answers
	// on its socket.
	ShimAnswers(group string) bool
	// RemoveStaleShim removes the socket of a shim group whose tasks are all deleted if no
	// shim serves it any more (see podsandbox.Shim.RemoveStale).
	RemoveStaleShim(group string, log *slog.Logger)
	// Containers lists the Containers whose labels have exactly the values of match and that
	// have each label of has, whatever its value: how adoption, the startup GC and the
	// unmanaged paths find what a pod runs.
	Containers(ctx context.Context, match map[string]string, has ...string) ([]Found, error)
	// LoadContainer returns the container id, its cgroup at cgroup (an error wrapping
	// errdefs.ErrNotFound if there is no such container).
	LoadContainer(ctx context.Context, id, cgroup string) (Container, error)
	// Leases lists the Leases that have the label key.
	Leases(ctx context.Context, key string) ([]Lease, error)
	// Sample reads the state of the tasks of the containers ids and the metrics of those
	// that run (see ctrd.Client.Sample); a container with no task is not in the result.
	Sample(ctx context.Context, ids []string) (map[string]ctrd.Sample, error)
}

// Class is a pod's runtime class as containerd runs it: the runtime (name and options) and
// the OCI spec options applied after all others.
type Class struct {
	Runtime  ctrd.Runtime
	SpecOpts []oci.SpecOpts
}

// Found is a container found by Runtime.Containers.
type Found struct {
	ID     string
	Labels map[string]string
	Image  string // the name of the image it was created from
	// Handle returns its handle, its cgroup at cgroup.
	Handle func(cgroup string) Container
}

// Lease is a lease found by Runtime.Leases.
type Lease = ctrd.Lease

// Image is an image a container runs.
type Image struct {
	Name string // containerd's image name
	ID   string // the digest of its target
	Size int64  // its size, when pulled (0 if unknown)
	ctrd ctrd.Image
}

// Output is where a task's stdout and stderr go: to a logger program that the shim runs
// beside the container (logger set), else through FIFOs in fifoDir to stdout and stderr,
// copied by this process.
type Output struct {
	Logger     string            // absolute path of the logger binary
	LoggerArgs map[string]string // its arguments (the log URI's query)

	Stdout, Stderr io.Writer
	FIFODir        string

	// Attach, if set, names the clients' FIFOs of an interactive ephemeral container (see
	// TeeAttach): the shim writes to FIFOs of its own, which this process copies to them and
	// to stdout and stderr (its log).
	Attach *cio.Config
	// StopCopy, with attach, ends this process's copy of the output (see TeeAttach).
	StopCopy <-chan struct{}
}

// Container is one containerd container (one instance of a pod's container).
type Container interface {
	// NewTask creates its task (runc create): the process exists, not started, its output
	// going where out says.
	NewTask(ctx context.Context, out Output) (Task, error)
	// TaskGone reports whether the container is known to have no task any more.
	TaskGone(ctx context.Context) bool
	// LoadTask returns its existing task (an error wrapping errdefs.ErrNotFound if none).
	LoadTask(ctx context.Context) (Task, error)
	// ProcessSpec returns the process part of its OCI spec.
	ProcessSpec(ctx context.Context) (*specs.Process, error)
	// Delete deletes the container and its snapshot.
	Delete(ctx context.Context) error
	// OOMKilled reports whether the kernel's OOM killer killed a process of its cgroup (read at
	// exit, before the task is deleted).
	OOMKilled() bool
	// RemoveCgroup removes its cgroup if runc left it behind after the task's deletion.
	RemoveCgroup() error
	// SweepCgroup removes its cgroup in every hierarchy after a failed task create.
	SweepCgroup() error
	// Purge deletes its task (killing its process) if it has one, then the container and its
	// snapshot; a task or container already gone is not an error. It is the delete of what no
	// supervisor follows (the startup GC, the sweep after a removal), and hits no crash point.
	Purge(ctx context.Context) error
}

// Task is a container's task: its main process.
type Task interface {
	// Wait returns a channel that gets the process's exit; ctx ending sends an ExitStatus with
	// ctx's error (the process may still run).
	Wait(ctx context.Context) (<-chan ctrd.ExitStatus, error)
	// Start starts the process.
	Start(ctx context.Context) error
	// PID is the process's PID in the host's PID namespace (known once the task is created).
	PID() uint32
	// Kill sends sig to the main process, or with all to every process of the container.
	Kill(ctx context.Context, sig syscall.Signal, all bool) error
	// Status returns the task's Status.
	Status(ctx context.Context) (ctrd.Status, error)
	// Delete deletes the task, killing its process if it still runs.
	Delete(ctx context.Context) error
	// Exec runs argv as an extra process of the task with the process spec ps (its args
	// replaced) and returns its exit code; if ctx ends first the process is killed and the
	// code is -1. bg carries the calls that must not be cancelled half-way.
	Exec(ctx, bg context.Context, ps specs.Process, argv []string, streams api.ExecIO, fifoDir string) (int, error)
	// Resize sets the size of the main process's terminal (an attached container's).
	Resize(ctx context.Context, w, h uint32) error
}

// OutputWaiter is a Task whose output this process copies (through FIFOs, with no logger
// program): WaitOutput reports whether the copy ended (the process's output is all written)
// within timeout. Containerd's tasks are; a fake's need not be.
type OutputWaiter interface {
	WaitOutput(timeout time.Duration) bool
}
