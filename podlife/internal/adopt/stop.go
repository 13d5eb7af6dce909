package adopt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/containerd/errdefs"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/cgroupfs"
	"github.com/podlife/podlife/podlife/internal/control"
	"github.com/podlife/podlife/podlife/internal/found"
	"github.com/podlife/podlife/podlife/internal/hostcheck"
	"github.com/podlife/podlife/podlife/internal/poddir"
	"github.com/podlife/podlife/podlife/internal/sandbox"
	"github.com/podlife/podlife/podlife/internal/worker"
	"github.com/podlife/podlife/podlife/internal/worker/podsandbox"
	"github.com/podlife/podlife/podlife/internal/worker/record"
)

// One stop and one remove: a pod whose manager is gone is stopped and removed by the core's
// Pod.Stop and Pod.Remove, on a Pod that this Runtime adopts for the purpose from the spec its
// record keeps (Adopter.Stoppable): no hooks (they were Go code or ran in the manager), no probes, no
// restarts. The pod's cgroups, volumes, port mappings, pause and shim group come from that spec,
// as the manager had them.

// Foreign stops (op "stop") or removes (op "remove") the named pod (a valid name) that this
// Runtime does not manage (see podlife's Pod.Stop), with grace if not nil: its manager is asked
// through its control socket, and a pod without a live manager is adopted here for the purpose
// (StopUnmanaged).
func (a *Adopter) Foreign(ctx context.Context, name, op string, grace *time.Duration) error {
	if err := api.CheckName("pod", name); err != nil {
		return err // checked by every caller; here too, as this joins it into a path
	}
	h := a.Host()
	var rec record.Record
	if err := found.ReadRecord(h.Cfg.StateDir, name, &rec); err != nil {
		return err
	}
	err := control.Ask(ctx, rec.Control, control.Request{Op: op, Pod: name, Grace: grace})
	switch {
	case errors.Is(err, control.ErrNoManager):
	case errors.Is(err, control.ErrManagerLost) && !hostcheck.ProcessAlive(rec.OwnerPID):
		// Killed while it listened: the socket took the connection, nobody answered. Stop
		// and remove are idempotent, so acting here is safe whatever it did first.
	case errors.Is(err, api.ErrNotFound):
		// The manager answers but no longer has the pod: its Remove failed half-way (a CNI
		// DEL that failed, say) and left the directory for a retry. Nothing supervises it.
		// (Or its Remove just succeeded: then the record is gone.)
		var again record.Record
		if err := found.ReadRecord(h.Cfg.StateDir, name, &again); err != nil || again.UID != rec.UID {
			return fmt.Errorf("pod %q: %w", name, api.ErrNotFound)
		}
		h.Log.Info("the pod's manager no longer has it; acting on what is left", "pod", name, "manager", rec.OwnerPID)
	default:
		return err
	}
	if rec.Control == "" && hostcheck.ProcessAlive(rec.OwnerPID) {
		// A manager without a control socket may still run: acting behind its back would race
		// its restarts.
		return fmt.Errorf("pod %q: its manager (pid %d) has no control socket; stop it there", name, rec.OwnerPID)
	}
	h.Log.Info("pod has no manager; adopting it to act on it", "pod", name, "op", op, "manager", rec.OwnerPID)
	return a.StopUnmanaged(ctx, found.Dir(h.Cfg.StateDir, name), op, rec, grace)
}

// StopUnmanaged stops (op "stop") or removes (op "remove") a pod whose manager is gone, with
// the core's stop and remove: it adopts the pod for the purpose (see Adopt; ErrManaged if
// another process adopts it meanwhile), with grace if not nil, else the record's. After a
// stop, the stopped pod is left unmanaged again.
func (a *Adopter) StopUnmanaged(ctx context.Context, dir, op string, rec record.Record, grace *time.Duration) error {
	if len(rec.Spec) == 0 {
		return fmt.Errorf("pod %q: its record has no spec (written by an older podlife): remove it with that version", rec.Name)
	}
	var given api.PodSpec
	if err := json.Unmarshal(rec.Spec, &given); err != nil {
		return fmt.Errorf("pod %q: the spec in its record: %w", rec.Name, err)
	}
	// The record's spec is the pod's recorded form: defaulted as admission does, not validated
	// again (it was when the pod started).
	spec, recorded, class := a.Stoppable(given)
	lock, err := poddir.LockAdoption(dir)
	switch {
	case errors.Is(err, poddir.ErrLocked):
		return &api.ManagedError{Pod: rec.Name, Adopting: true}
	case errors.Is(err, fs.ErrNotExist):
		// Removed by another process since its record was read: its directory renamed away.
		return fmt.Errorf("pod %q: %w", rec.Name, api.ErrNotFound)
	case err != nil:
		return fmt.Errorf("pod %q: %w", rec.Name, err)
	}
	a.settleCreates(ctx, rec.UID)
	p, err := a.adoptLocked(ctx, spec, recorded, class, dir, lock, true)
	if err != nil {
		_ = lock.Close()
		return err
	}
	g := rec.Grace
	if grace != nil {
		g = *grace
	}
	err = p.Stop(ctx, worker.StopOptions{Grace: &g, NoHooks: true})
	if op == "stop" {
		p.Detach()
		return err
	}
	if err := p.Remove(ctx); err != nil {
		return err
	}
	// What the dead manager's calls made after it died (a task created once its manager was
	// killed) is not in what the adoption bound: delete every container left with the pod's UID.
	a.sweepPodContainers(ctx, rec.UID)
	return nil
}

// settleCreates gives the creates a dead manager left in flight time to finish: containerd
// completes a task create whose client died, so a container seen without a task may get one
// just after the adoption looked (and its task would then outlive the removal in the pod's
// shim). It waits, at most createSettle, until every container of the pod uid has a task.
func (a *Adopter) settleCreates(ctx context.Context, uid string) {
	deadline := time.Now().Add(createSettle)
	for {
		ctrs, err := a.Host().Tasks.Containers(ctx, map[string]string{podsandbox.LabelPodUID: uid})
		if err != nil {
			return
		}
		pending := false
		for _, ctr := range ctrs {
			if _, err := ctr.Handle("").LoadTask(ctx); errdefs.IsNotFound(err) {
				pending = true
				break
			}
		}
		if !pending || time.Now().After(deadline) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// createSettle bounds settleCreates: a containerd task create takes well under it.
const createSettle = 2 * time.Second

// sweepPodContainers deletes the containers (tasks, snapshots, shim sockets, cgroups) still
// labelled with the pod uid, after its removal.
func (a *Adopter) sweepPodContainers(ctx context.Context, uid string) {
	h := a.Host()
	ctrs, err := h.Tasks.Containers(ctx, map[string]string{podsandbox.LabelPodUID: uid})
	if err != nil {
		h.Log.Warn("remove: list the pod's containers left", "uid", uid, "err", err)
		return
	}
	ns := h.Cfg.Namespace
	for _, ctr := range ctrs {
		if err := ctr.Handle("").Purge(ctx); err != nil {
			h.Log.Warn("remove: a container of the pod was left", "container", ctr.ID, "err", err)
			continue
		}
		h.Tasks.RemoveStaleShim(ctr.ID, h.Log)
		_ = cgroupfs.Remove(filepath.Join("/", ns, ctr.ID))
		_ = cgroupfs.Remove(filepath.Join(sandbox.CgroupPath(ns, uid), ctr.ID))
		h.Log.Warn("remove: deleted a container of the pod that its adoption did not find", "container", ctr.ID)
	}
	if len(ctrs) > 0 {
		_ = cgroupfs.Sweep(sandbox.CgroupPath(ns, uid))
	}
}
