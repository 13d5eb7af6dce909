package podlife

import (
	"context"
	"os"

	"github.com/podlife/podlife/podlife/internal/adopt"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// Adopt takes over the supervision of a pod that another process started and that no live
// process manages any more (its manager crashed, was killed or closed its Runtime): see
// PodRecord.Managed. The caller gives the pod's spec again (its Go hooks and probers cannot be
// persisted); it must be the spec the pod was started with, or Adopt fails with a
// *SpecChangedError naming what differs (errors.Is(err, ErrSpecChanged)). A pod with a live
// manager, or that another process is adopting, is refused with a *ManagedError
// (errors.Is(err, ErrManaged)); a pod that does not exist with an error wrapping ErrNotFound.
//
// Adoption re-binds the spec to what runs: the sandbox (pinned namespaces, network attachment,
// pod cgroup, pause), each container's current instance; and resumes the supervision: exit
// watching, probes (a startup probe that had succeeded is not run again), the restart policy
// with the restart counts and crash-loop back-off the previous manager persisted, stop with
// preStop hooks, events, status.json, the control socket (this process becomes the pod's
// manager). Containers still running are never restarted by adoption. A container that exited
// while no manager ran is recorded with its real exit code and time and handled by the restart
// policy (its restart count goes up once). A postStart hook that the previous manager's death
// interrupted is reported as a failed postStart (FailedPostStartHook; the container is killed and
// restarted per policy). A pod whose start sequence was interrupted (a container not created
// or not started yet) is not resumed: it is stopped, Failed with reason StartInterrupted, and
// left for Remove. A pod that was stopped is adopted stopped, for Remove; one whose stop had
// begun has its stop finished, with what is left of its grace period.
//
// The adopter holds the pod's adoption lock until the pod is removed or the Runtime closed.
func (r *Runtime) Adopt(ctx context.Context, spec PodSpec) (*Pod, error) {
	w, err := r.adopt(ctx, spec)
	return r.handle(w), err
}

// adopt is Adopt, returning the adopted pod's worker (see package adopt).
func (r *Runtime) adopt(ctx context.Context, spec PodSpec) (*podWorker, error) {
	spec, recorded, handler, err := r.admit(spec)
	if err != nil {
		return nil, err
	}
	if _, err := r.table.Get(spec.Name); err == nil {
		return nil, &ManagedError{Pod: spec.Name, PID: os.Getpid()}
	}
	if r.isClosed() {
		return nil, ErrClosed
	}
	return r.adopter.Adopt(ctx, spec, recorded, handler.class())
}

// newAdopter returns what adopts pods for r (see package adopt).
func newAdopter(r *Runtime) *adopt.Adopter {
	return &adopt.Adopter{
		Host: r.workerHost, Register: r.table.Adopted, Listen: func() { r.control.listen() },
		Locks: &r.adoptLocks, Stoppable: r.stoppable,
	}
}

// stoppable is admission for a pod adopted to be stopped or removed (see adopt.StopUnmanaged):
// the spec its record keeps, which is the pod's recorded form (see recordedSpec), defaulted as
// admission does but not validated again (it was when the pod started).
func (r *Runtime) stoppable(given PodSpec) (spec, recorded PodSpec, class tasks.Class) {
	spec = given.WithDefaults()
	handler, err := r.cfg.runtimeFor(&spec, &r.specVersions)
	if err != nil {
		// Only new containers need it, and none is made for a stop.
		r.log.Debug("runtime class of a pod to stop", "pod", spec.Name, "err", err)
	}
	return spec, recordedSpec(given, spec), handler.class()
}
