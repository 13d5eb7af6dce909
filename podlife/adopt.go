package podlife

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/podlife/podlife/podlife/internal/poddir"
	"github.com/podlife/podlife/podlife/internal/worker"
	"github.com/podlife/podlife/podlife/internal/worker/observe"
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

// adopt is Adopt, returning the adopted pod's worker.
func (r *Runtime) adopt(ctx context.Context, spec PodSpec) (*podWorker, error) {
	spec, recorded, handler, err := r.admit(spec)
	if err != nil {
		return nil, err
	}
	if _, err := r.worker(spec.Name); err == nil {
		return nil, &ManagedError{Pod: spec.Name, PID: os.Getpid()}
	}
	if r.isClosed() {
		return nil, ErrClosed
	}
	dir := filepath.Join(r.cfg.StateDir, "pods", spec.Name)
	var rec podRecord
	if err := poddir.ReadJSON(filepath.Join(dir, recordFile), &rec); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("pod %q: %w", spec.Name, ErrNotFound)
		}
		return nil, fmt.Errorf("pod %q: %w", spec.Name, err)
	}
	// Checked before the lock too, so that a live manager is named whoever holds the lock.
	if err := r.checkAdoptable(spec, recorded, rec); err != nil {
		return nil, err
	}
	lock, err := poddir.LockAdoption(dir)
	if errors.Is(err, poddir.ErrLocked) {
		return nil, &ManagedError{Pod: spec.Name, Adopting: true}
	}
	if err != nil {
		return nil, fmt.Errorf("pod %q: %w", spec.Name, err)
	}
	p, err := r.adoptLocked(ctx, spec, recorded, handler, dir, rec, lock, false)
	if err != nil {
		_ = lock.Close()
		return nil, err
	}
	return p, nil
}

// adoptLocked adopts the pod in dir under its lock; spec is admitted (see Runtime.admit),
// recorded its record's form. forStop adopts it only to stop or remove it (see
// stopUnmanaged): the spec is the record's, and nothing is resumed but exit watching.
func (r *Runtime) adoptLocked(ctx context.Context, spec, recorded PodSpec, handler ctrRuntime, dir string, rec podRecord, lock *os.File, forStop bool) (*podWorker, error) {
	// Read again under the lock: an adopter that just released it may have rewritten it.
	if err := poddir.ReadJSON(filepath.Join(dir, recordFile), &rec); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("pod %q: %w", spec.Name, ErrNotFound)
		}
		return nil, fmt.Errorf("pod %q: %w", spec.Name, err)
	}
	switch {
	case forStop && r.managerAlive(rec):
		return nil, &ManagedError{Pod: spec.Name, PID: rec.OwnerPID}
	case !forStop:
		if err := r.checkAdoptable(spec, recorded, rec); err != nil {
			return nil, err
		}
	}
	if rec.SpecHash == "" && rec.SpecMAC == "" {
		r.log.Warn("the pod's record has no spec fingerprint (an older manager): adopting it unchecked", "pod", spec.Name)
	}
	if err := r.conn.WaitConnected(ctx); err != nil {
		return nil, fmt.Errorf("pod %q: %w", spec.Name, err)
	}
	h := r.workerHost()
	found, err := observe.Observe(h.Ctx(ctx), observe.Request{
		Tasks: h.Tasks, Namespace: h.Cfg.Namespace, Spec: spec, UID: rec.UID, Dir: dir, Closing: h.Closing,
	})
	if err != nil {
		return nil, fmt.Errorf("pod %q: adopt: %w", spec.Name, err)
	}
	p, resume, err := worker.Restore(ctx, h, worker.Observed{
		Spec: spec, Recorded: recorded, Handler: handler.class(), Dir: dir, Record: rec,
		Network: r.recordedNetwork(rec.Network, spec.Name), ForStop: forStop, Found: found,
	})
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, ErrClosed
	}
	if _, ok := r.pods[spec.Name]; ok || r.reserved[spec.Name] {
		r.mu.Unlock()
		return nil, &ManagedError{Pod: spec.Name, PID: os.Getpid()}
	}
	r.pods[spec.Name] = p
	r.mu.Unlock()
	r.adoptLocks.hold(p, lock)
	r.control.listen()
	resume()
	return p, nil
}

// checkAdoptable refuses a changed spec (first: replacing the pod is the way then, whoever
// manages it) and a pod with a live manager.
func (r *Runtime) checkAdoptable(spec, recorded PodSpec, rec podRecord) error {
	spec, recorded, _ = deadlineUpdate(spec, recorded, rec) // compared as it started
	if err := r.checkSpec(spec, recorded, rec); err != nil {
		return err
	}
	if r.managerAlive(rec) {
		return &ManagedError{Pod: spec.Name, PID: rec.OwnerPID}
	}
	return nil
}

// managerAlive reports whether the process that wrote rec still manages the pod: its control
// socket answers (or, for a manager without one, its process lives). This Runtime's own socket
// names a pod it no longer has (callers checked): its Remove failed half-way, or it stopped the
// pod for another process (see stopUnmanaged).
func (r *Runtime) managerAlive(rec podRecord) bool {
	if rec.Control != "" {
		return rec.Control != r.control.path() && answers(rec.Control)
	}
	return rec.OwnerPID != os.Getpid() && processAlive(rec.OwnerPID)
}
