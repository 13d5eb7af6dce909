package podlife

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/podlife/podlife/podlife/internal/control"
	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/found"
	"github.com/podlife/podlife/podlife/internal/logs"
	"github.com/podlife/podlife/podlife/internal/poddir"
)

// PodRecord is what the state directory and containerd say of a pod, whichever process manages
// it: this Runtime, another process using the same state directory (a CLI's background
// supervisor, an agent), or none, if its manager died.
type PodRecord struct {
	Name      string    `json:"name"`
	Namespace string    `json:"namespace"`
	UID       string    `json:"uid"`
	Created   time.Time `json:"created"`
	// Dir is the pod's directory (logs are under Dir/logs/<container>/<attempt>.log).
	Dir string `json:"dir"`
	// Manager is the PID of the process managing the pod, 0 if it is gone. A pod with no
	// manager is not supervised: nothing restarts or probes its containers.
	Manager int `json:"manager"`
	// Status is the manager's latest status. Without a manager, running containers are checked
	// against containerd: those whose task ended are shown terminated, and nothing is ready.
	Status PodStatus `json:"status"`
}

// Managed reports whether a live process manages the pod.
func (r PodRecord) Managed() bool { return r.Manager != 0 }

// logFiles returns the container's log files, oldest attempt first (see logs.Files).
func (r PodRecord) logFiles(container string) []string { return logs.Files(r.Dir, container) }

// ListPods returns every pod in the state directory, sorted by name: this Runtime's pods and
// those of other processes (see PodRecord). Pods of this Runtime show their live status.
func (r *Runtime) ListPods(ctx context.Context) ([]PodRecord, error) {
	names, err := found.Names(r.cfg.StateDir)
	if err != nil {
		return nil, fmt.Errorf("podlife: list pods: %w", err)
	}
	var out []PodRecord
	for _, name := range names {
		rec, err := r.LookupPod(ctx, name)
		if errors.Is(err, ErrNotFound) {
			continue // being created or removed
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

// LookupPod returns the record of the named pod, whichever process manages it, or an error
// wrapping ErrNotFound. A name that is not a valid pod name (a DNS-1123 label) is refused with an
// error wrapping ErrInvalidSpec before it is used.
func (r *Runtime) LookupPod(ctx context.Context, name string) (PodRecord, error) {
	if err := checkName("pod", name); err != nil {
		return PodRecord{}, err
	}
	dir := found.Dir(r.cfg.StateDir, name)
	rec, err := r.readRecord(name)
	if err != nil {
		return PodRecord{}, err
	}
	out := PodRecord{Name: rec.Name, Namespace: rec.Namespace, UID: rec.UID, Created: rec.Created, Dir: dir}
	if p, err := r.table.Get(name); err == nil && p.UID() == rec.UID {
		out.Manager, out.Status = os.Getpid(), p.Status()
		return out, nil
	}
	if err := poddir.ReadJSON(filepath.Join(dir, statusFile), &out.Status); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return PodRecord{}, fmt.Errorf("pod %q: status: %w", name, err)
	}
	out.Status.Name = name
	// Our own socket names a pod this Runtime no longer has (its Remove failed half-way): no
	// manager, though the socket answers.
	if rec.Control != r.control.path() && control.Answers(rec.Control) {
		out.Manager = rec.OwnerPID
		return out, nil
	}
	r.reconcile(ctx, &rec, &out.Status, nil)
	return out, nil
}

// reconcile corrects the last status an unmanaged pod's manager wrote with what containerd
// knows now (see found.Reconcile).
func (r *Runtime) reconcile(ctx context.Context, rec *podRecord, st *PodStatus, exits map[string]ctrd.ExitStatus) {
	state := func(ctx context.Context, id string) (ctrd.Status, error) {
		ctr, err := r.tasks.LoadContainer(ctx, id, "")
		if err != nil {
			return ctrd.Status{}, err
		}
		task, err := ctr.LoadTask(ctx)
		if err != nil {
			return ctrd.Status{}, err
		}
		return task.Status(ctx)
	}
	phase := func(initStatuses, statuses []ContainerStatus) Phase {
		return computePhase(byPolicy(RestartNever), false, initStatuses, statuses, nil)
	}
	found.Reconcile(r.ctx(ctx), state, phase, rec.OwnerPID, st, exits)
}
