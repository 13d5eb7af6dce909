package observe

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/containerd/errdefs"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/podlife/podlife/internal/execgate"
	"github.com/podlife/podlife/internal/sandboxns"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/cgroupfs"
	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/layout"
	"github.com/podlife/podlife/podlife/internal/poddir"
	"github.com/podlife/podlife/podlife/internal/sandbox"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/imagepull"
	"github.com/podlife/podlife/podlife/internal/worker/record"
)

// The labels it reads, as the worker writes them on every containerd container of a pod
// (worker/labels.go, worker/pause.go; a worker test keeps them equal).
const (
	// LabelContainer is the container's name in its pod.
	LabelContainer = "podlife.io/container"
	// LabelKind is the container's kind: "init", "app", KindEphemeral or KindPause.
	LabelKind = "podlife.io/kind"
	// LabelAttempt is the instance's attempt: 0, then one more at each restart.
	LabelAttempt = "podlife.io/attempt"
	// KindPause is LabelKind of a pod's pause.
	KindPause = "pause"
	// KindEphemeral is LabelKind of an ephemeral container.
	KindEphemeral = "ephemeral"
)

// TaskState is what an adopter finds of an instance's task.
type TaskState int

const (
	// TaskNone: no task: never made, or deleted.
	TaskNone TaskState = iota
	// TaskCreated: made, its process not started.
	TaskCreated
	// TaskRunning: its process runs (or is paused).
	TaskRunning
	// TaskStopped: its process exited.
	TaskStopped
)

// Request says where a pod's objects are.
type Request struct {
	// Tasks is containerd (the seam), called with Observe's ctx (in the Runtime's namespace).
	Tasks tasks.Runtime
	// Namespace is the Runtime's containerd namespace (containers' default cgroups).
	Namespace string
	// Spec is the pod's spec: its containers' images are looked up, its pod-level resources
	// tell its containers' cgroups.
	Spec api.PodSpec
	// UID is the pod's UID (its containers' label), Dir its directory.
	UID, Dir string
	// Closing ends the reading away of the previous manager's exec output (see Pod.Drained).
	Closing <-chan struct{}
}

// Pod is what Observe found of a pod.
type Pod struct {
	// Drained is how many output FIFOs of the previous manager's execs in flight (a hook, a
	// probe) are read away: until a reader comes, the shim holds back their container's exit
	// for 30 s (see ctrd.DrainOrphanFIFOs).
	Drained int
	// Last is the status the previous manager last wrote (zero if none); LastErr says why it
	// could not be read, if it exists.
	Last    api.PodStatus
	LastErr error
	// Supervision is the pod's supervision.json (zero if none or unreadable: SupervisionErr).
	Supervision    record.Supervision
	SupervisionErr error
	// Sandbox is the pod's sandbox.json (zero if none).
	Sandbox sandbox.Record
	// NSPaths are the pinned network, IPC and UTS namespaces that exist; PIDNS the pinned PID
	// namespace of a pause ("" if none).
	NSPaths map[sandboxns.Kind]string
	PIDNS   string
	// Pause is the pod's pause, if it has one in containerd.
	Pause *Instance
	// Containers are the instances of each container (by name; a pause's excluded), sorted by
	// attempt.
	Containers map[string][]Instance
	// AnyTask is whether any container of the pod (its pause included) has a task.
	AnyTask bool
	// Images are the local images of the spec's init and regular containers, by name.
	Images map[string]Image
}

// Instance is a containerd container of the pod and what was found of its task.
type Instance struct {
	ID      string
	Name    string            // its container's name in the pod (LabelContainer)
	Attempt int               // LabelAttempt
	Image   string            // the name of the image it was created from
	Labels  map[string]string // its containerd labels
	// Ctr is its handle, with its cgroup; Task its task (nil if State is TaskNone).
	Ctr   tasks.Container
	Task  tasks.Task
	State TaskState
}

// Image is what was found of a container's image locally (no pull).
type Image struct {
	// Found says it is present; Err why it could not be looked up (both unset: not present).
	Found bool
	Err   error
	Image tasks.Image
	// Config is its config (ConfigErr: unreadable).
	Config    ocispec.Image
	ConfigErr error
}

// Observe reads what exists of the pod in dir and in containerd; it changes nothing but
// reading away the output FIFOs of the previous manager's execs (Pod.Drained).
func Observe(ctx context.Context, req Request) (*Pod, error) {
	o := &Pod{NSPaths: map[sandboxns.Kind]string{}, Containers: map[string][]Instance{}, Images: map[string]Image{}}
	o.Drained, _ = ctrd.DrainOrphanFIFOs(filepath.Join(req.Dir, "fifo"), tasks.ExecIDPrefix, req.Closing)
	if err := poddir.ReadJSON(filepath.Join(req.Dir, record.StatusFile), &o.Last); err != nil && !errors.Is(err, fs.ErrNotExist) {
		o.LastErr = err
	}
	o.Supervision, o.SupervisionErr = record.LoadSupervision(req.Dir)
	if err := poddir.ReadJSON(filepath.Join(req.Dir, layout.SandboxFile), &o.Sandbox); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("sandbox.json: %w", err)
	}
	for _, k := range []sandboxns.Kind{sandboxns.Net, sandboxns.IPC, sandboxns.UTS} {
		if path := filepath.Join(req.Dir, "ns", string(k)); fileExists(path) {
			o.NSPaths[k] = path
		}
	}
	ctrs, err := req.Tasks.Containers(ctx, map[string]string{layout.LabelPodUID: req.UID})
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	for _, ctr := range ctrs {
		kind := ctr.Labels[LabelKind]
		cgroup := cgroupfs.Path(req.Namespace, ctr.ID)
		if kind != KindPause && kind != KindEphemeral && sandbox.HasLimits(req.Spec.Resources) {
			cgroup = filepath.Join(sandbox.CgroupPath(req.Namespace, req.UID), ctr.ID) // as the worker made it
		}
		cg := ctr.Handle(cgroup)
		task, state, err := loadTaskState(ctx, cg)
		if err != nil {
			return nil, fmt.Errorf("container %s: %w", ctr.ID, err)
		}
		if state != TaskNone && !execgate.Released(req.Dir, ctr.ID) {
			// A warm pool member's container whose gate was never released (the pod's start
			// was cut): its process, running or exited (ExitManagerGone), is the gate's, not
			// its command's.
			state = TaskCreated
		}
		o.AnyTask = o.AnyTask || state != TaskNone
		attempt, _ := strconv.Atoi(ctr.Labels[LabelAttempt])
		inst := Instance{ID: ctr.ID, Name: ctr.Labels[LabelContainer], Attempt: attempt, Image: ctr.Image,
			Labels: ctr.Labels, Ctr: cg, Task: task, State: state}
		if kind == KindPause {
			o.Pause = &inst
			continue
		}
		o.Containers[inst.Name] = append(o.Containers[inst.Name], inst)
	}
	for _, insts := range o.Containers {
		sort.Slice(insts, func(i, j int) bool { return insts[i].Attempt < insts[j].Attempt })
	}
	if pidNS := filepath.Join(req.Dir, "ns", string(sandboxns.PID)); fileExists(pidNS) {
		o.PIDNS = pidNS
	}
	// For the containers' restarts: the image the pod ran with is local (no pull, whatever
	// the policy: the previous manager resolved it once too).
	for _, c := range append(append([]api.ContainerSpec{}, req.Spec.InitContainers...), req.Spec.Containers...) {
		o.Images[c.Name] = localImage(ctx, req.Tasks, c.Image)
	}
	return o, nil
}

// localImage looks ref up among the local images and reads its config.
func localImage(ctx context.Context, t tasks.Runtime, ref string) Image {
	var im Image
	ref, im.Err = imagepull.NormalizeRef(ref)
	if im.Err == nil {
		im.Image, im.Found, im.Err = t.LocalImage(ctx, ref)
	}
	if im.Err != nil || !im.Found {
		return im
	}
	if im.Config, im.ConfigErr = t.ImageConfig(ctx, im.Image); im.ConfigErr != nil {
		im.ConfigErr = fmt.Errorf("read image config: %w", im.ConfigErr)
	}
	return im
}

// loadTaskState loads ctr's task, if any, and tells its state.
func loadTaskState(ctx context.Context, ctr tasks.Container) (tasks.Task, TaskState, error) {
	task, err := ctr.LoadTask(ctx)
	if errdefs.IsNotFound(err) {
		return nil, TaskNone, nil
	}
	if err != nil {
		return nil, TaskNone, err
	}
	st, err := task.Status(ctx)
	if err != nil {
		return nil, TaskNone, err
	}
	switch st.Status {
	case ctrd.Created:
		return task, TaskCreated, nil
	case ctrd.Running, ctrd.Paused, ctrd.Pausing:
		return task, TaskRunning, nil
	}
	return task, TaskStopped, nil
}

func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
