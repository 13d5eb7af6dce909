package creating

import (
	"context"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/containerd/containerd/v2/core/containers"
	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/podlife/internal/worker/attempt"
	"github.com/podlife/podlife/podlife/internal/worker/containerspec"
	"github.com/podlife/podlife/podlife/internal/worker/podsandbox"
	"github.com/podlife/podlife/podlife/internal/worker/volmount"
)

// Attempt is what Make needs to make one attempt of a container.
type Attempt struct {
	// Spec is the container's OCI spec input; Make adds its volumes.
	Spec containerspec.Input
	// VolumeDir is the host directory of the pod's volume of that name.
	VolumeDir func(name string) string
	// Create is the attempt's containerd objects; Make sets their Opts, TermPath and Explain
	// and labels them with the attempt's number and StopSignal. Create.PodDir is where the
	// private mount points and the termination message file go.
	Create     attempt.Spec
	StopSignal syscall.Signal
	// Last, if set, changes the OCI spec after every other option (a warm pool member's exec
	// gate: see internal/execgate).
	Last func(*specs.Spec) error
}

// Made is what Make made: the attempt's containerd objects and its termination message file.
type Made struct {
	attempt.Created
	TermPath string
}

// Make makes the attempt's containerd container and task (runc create) with its log file open
// (see attempt.Create); the process is not started. ctx ends only the wait for the pod's shim
// (Create.WithShim): the rest is not cancellable (see attempt.Create).
func Make(ctx context.Context, conn attempt.Conn, a Attempt) (Made, error) {
	ctx = context.WithoutCancel(ctx)
	s, cs := &a.Create, a.Spec.Container
	t0 := time.Now()
	volumes, private, err := volmount.Mounts(a.Spec.Pod, cs, a.VolumeDir, filepath.Join(s.PodDir, "subpaths", s.ID))
	if err != nil {
		return Made{}, err
	}
	// runc has made its own mounts from the private ones once the task is created (or failed).
	defer func() {
		if err := private.Release(); err != nil {
			conn.Log.Warn("private volume mounts left", "container", cs.Name, "err", err)
		}
	}()
	termPath, termMount, err := attempt.TerminationMount(s.PodDir, s.ID, cs.TerminationMessagePath)
	if err != nil {
		return Made{}, err
	}
	a.Spec.Volumes = append(volumes, termMount)
	if s.Opts, err = containerspec.Opts(a.Spec); err != nil {
		return Made{}, err
	}
	if a.Last != nil {
		s.Opts = append(s.Opts, func(_ context.Context, _ oci.Client, _ *containers.Container, spec *oci.Spec) error {
			return a.Last(spec)
		})
	}
	s.Labels[podsandbox.LabelAttempt] = strconv.Itoa(s.Attempt)
	s.Labels[podsandbox.LabelStopSignal] = strconv.Itoa(int(a.StopSignal))
	s.TermPath, s.Explain = termPath, private.Explain
	t1 := time.Now()
	made, err := attempt.Create(ctx, conn, *s)
	if err != nil {
		return Made{}, err
	}
	conn.Log.Debug("container created", "container", cs.Name, "attempt", s.Attempt, "id", s.ID, "spec", t1.Sub(t0),
		"newContainer", made.NewContainer, "newTask", made.NewTask)
	return Made{Created: made, TermPath: termPath}, nil
}
