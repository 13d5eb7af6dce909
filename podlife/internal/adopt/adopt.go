package adopt

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/control"
	"github.com/podlife/podlife/podlife/internal/found"
	"github.com/podlife/podlife/podlife/internal/hostcheck"
	"github.com/podlife/podlife/podlife/internal/poddir"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker"
	"github.com/podlife/podlife/podlife/internal/worker/observe"
	"github.com/podlife/podlife/podlife/internal/worker/record"
)

// Adopter adopts pods for a Runtime, from what the Runtime gives it as values and functions.
// Its methods are safe for concurrent use.
type Adopter struct {
	// Host is what the Runtime gives its workers (its settings, containerd, its logger, its
	// control socket's path, the state dir's fingerprint key).
	Host func() *worker.Host
	// Register makes an adopted worker one of the Runtime's pods: an error wrapping
	// api.ErrClosed once the Runtime is closed, a *api.ManagedError if it has a pod of that
	// name or is creating one.
	Register func(w *worker.Worker) error
	// Listen starts the Runtime's control socket, once it manages a pod.
	Listen func()
	// Locks are the adoption locks the Runtime holds.
	Locks *Locks
	// Stoppable is admission for a pod adopted only to stop or remove it: the spec its record
	// keeps, defaulted as admission does, its recorded form and its runtime class.
	Stoppable func(given api.PodSpec) (spec, recorded api.PodSpec, class tasks.Class)
}

// Adopt takes over the supervision of a pod that another process started and that no live
// process manages any more (see podlife's Runtime.Adopt, which has admitted spec: recorded is
// its recorded form, class its runtime class). It returns the adopted pod's worker, running.
func (a *Adopter) Adopt(ctx context.Context, spec, recorded api.PodSpec, class tasks.Class) (*worker.Worker, error) {
	dir := found.Dir(a.Host().Cfg.StateDir, spec.Name)
	var rec record.Record
	if err := found.ReadRecord(a.Host().Cfg.StateDir, spec.Name, &rec); err != nil {
		return nil, err
	}
	// Checked before the lock too, so that a live manager is named whoever holds the lock.
	if err := a.checkAdoptable(spec, recorded, rec); err != nil {
		return nil, err
	}
	lock, err := poddir.LockAdoption(dir)
	switch {
	case errors.Is(err, poddir.ErrLocked):
		return nil, &api.ManagedError{Pod: spec.Name, Adopting: true}
	case errors.Is(err, fs.ErrNotExist):
		// Removed by another process since its record was read: its directory renamed away.
		return nil, fmt.Errorf("pod %q: %w", spec.Name, api.ErrNotFound)
	case err != nil:
		return nil, fmt.Errorf("pod %q: %w", spec.Name, err)
	}
	p, err := a.adoptLocked(ctx, spec, recorded, class, dir, lock, false)
	if err != nil {
		_ = lock.Close()
		return nil, err
	}
	return p, nil
}

// adoptLocked adopts the pod in dir under its lock; spec is admitted, recorded its record's
// form. forStop adopts it only to stop or remove it (see StopUnmanaged): the spec is the
// record's, and nothing is resumed but exit watching.
func (a *Adopter) adoptLocked(ctx context.Context, spec, recorded api.PodSpec, class tasks.Class, dir string, lock *os.File, forStop bool) (*worker.Worker, error) {
	h := a.Host()
	// Read again under the lock: an adopter that just released it may have rewritten it.
	var rec record.Record
	if err := found.ReadRecord(h.Cfg.StateDir, spec.Name, &rec); err != nil {
		return nil, err
	}
	switch {
	case forStop && a.ManagerAlive(rec):
		return nil, &api.ManagedError{Pod: spec.Name, PID: rec.OwnerPID}
	case !forStop:
		if err := a.checkAdoptable(spec, recorded, rec); err != nil {
			return nil, err
		}
	}
	if rec.SpecHash == "" && rec.SpecMAC == "" {
		h.Log.Warn("the pod's record has no spec fingerprint (an older manager): adopting it unchecked", "pod", spec.Name)
	}
	if err := h.WaitConnected(ctx); err != nil {
		return nil, fmt.Errorf("pod %q: %w", spec.Name, err)
	}
	obs, err := observe.Observe(h.Ctx(ctx), observe.Request{
		Tasks: h.Tasks, Namespace: h.Cfg.Namespace, Spec: spec, UID: rec.UID, Dir: dir, Closing: h.Closing,
	})
	if err != nil {
		return nil, fmt.Errorf("pod %q: adopt: %w", spec.Name, err)
	}
	p, resume, err := worker.Restore(ctx, h, worker.Observed{
		Spec: spec, Recorded: recorded, Handler: class, Dir: dir, Record: rec,
		Network: a.recordedNetwork(rec.Network, spec.Name), ForStop: forStop, Found: obs,
	})
	if err != nil {
		return nil, err
	}
	if err := a.Register(p); err != nil {
		return nil, err
	}
	a.Locks.Hold(p, lock)
	a.Listen()
	resume()
	return p, nil
}

// checkAdoptable refuses a changed spec (first: replacing the pod is the way then, whoever
// manages it) and a pod with a live manager.
func (a *Adopter) checkAdoptable(spec, recorded api.PodSpec, rec record.Record) error {
	spec, recorded, _ = record.DeadlineUpdate(spec, recorded, rec) // compared as it started
	if err := a.CheckSpec(spec, recorded, rec); err != nil {
		return err
	}
	if a.ManagerAlive(rec) {
		return &api.ManagedError{Pod: spec.Name, PID: rec.OwnerPID}
	}
	return nil
}

// ManagerAlive reports whether the process that wrote rec still manages the pod: its control
// socket answers (or, for a manager without one, its process lives). This Runtime's own socket
// names a pod it no longer has (callers checked): its Remove failed half-way, or it stopped the
// pod for another process (see StopUnmanaged).
func (a *Adopter) ManagerAlive(rec record.Record) bool {
	if rec.Control != "" {
		return rec.Control != a.Host().ControlPath() && control.Answers(rec.Control)
	}
	return rec.OwnerPID != os.Getpid() && hostcheck.ProcessAlive(rec.OwnerPID)
}
