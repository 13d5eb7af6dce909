package podlife

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/containerd/errdefs"
	"github.com/podlife/podlife/podlife/internal/cgroupfs"
	"github.com/podlife/podlife/podlife/internal/poddir"
	"github.com/podlife/podlife/podlife/internal/sandbox"
	"github.com/podlife/podlife/podlife/internal/worker"
)

// One stop and one remove: a pod whose manager is gone is stopped and removed by the core's
// Pod.Stop and Pod.Remove, on a Pod that this Runtime adopts for the purpose from the spec its
// record keeps (stoppableSpec): no hooks (they were Go code or ran in the manager), no probes, no
// restarts. The pod's cgroups, volumes, port mappings, pause and shim group come from that spec,
// as the manager had them.

// stopUnmanaged stops (op "stop") or removes (op "remove") a pod whose manager is gone, with
// the core's stop and remove: it adopts the pod for the purpose (see Adopt; ErrManaged if
// another process adopts it meanwhile). After a stop, the stopped pod is left unmanaged again.
func (r *Runtime) stopUnmanaged(ctx context.Context, dir, op string, rec podRecord, o stopOptions) error {
	if len(rec.Spec) == 0 {
		return fmt.Errorf("pod %q: its record has no spec (written by an older podlife): remove it with that version", rec.Name)
	}
	var spec PodSpec
	if err := json.Unmarshal(rec.Spec, &spec); err != nil {
		return fmt.Errorf("pod %q: the spec in its record: %w", rec.Name, err)
	}
	// The record's spec is the pod's recorded form (see recordedSpec): defaulted here as
	// admission does, not validated again (it was when the pod started).
	given := spec
	spec = spec.WithDefaults()
	recorded := recordedSpec(given, spec)
	handler, err := r.cfg.runtimeFor(&spec, &r.specVersions)
	if err != nil {
		// Only new containers need it, and none is made for a stop.
		r.log.Debug("runtime class of a pod to stop", "pod", rec.Name, "err", err)
	}
	lock, err := poddir.LockAdoption(dir)
	if errors.Is(err, poddir.ErrLocked) {
		return &ManagedError{Pod: rec.Name, Adopting: true}
	}
	if err != nil {
		return fmt.Errorf("pod %q: %w", rec.Name, err)
	}
	r.settleCreates(ctx, rec.UID)
	p, err := r.adoptLocked(ctx, spec, recorded, handler, dir, rec, lock, true)
	if err != nil {
		_ = lock.Close()
		return err
	}
	grace := rec.Grace
	if o.grace != nil {
		grace = *o.grace
	}
	err = p.Stop(ctx, worker.StopOptions{Grace: &grace, NoHooks: true})
	if op == "stop" {
		p.Detach()
		return err
	}
	if err := p.Remove(ctx); err != nil {
		return err
	}
	// What the dead manager's calls made after it died (a task created once its manager was
	// killed) is not in what the adoption bound: delete every container left with the pod's UID.
	r.sweepPodContainers(ctx, rec.UID)
	return nil
}

// settleCreates gives the creates a dead manager left in flight time to finish: containerd
// completes a task create whose client died, so a container seen without a task may get one
// just after the adoption looked (and its task would then outlive the removal in the pod's
// shim). It waits, at most createSettle, until every container of the pod uid has a task.
func (r *Runtime) settleCreates(ctx context.Context, uid string) {
	deadline := time.Now().Add(createSettle)
	for {
		ctrs, err := r.tasks.Containers(ctx, map[string]string{labelPodUID: uid})
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
func (r *Runtime) sweepPodContainers(ctx context.Context, uid string) {
	ctrs, err := r.tasks.Containers(ctx, map[string]string{labelPodUID: uid})
	if err != nil {
		r.log.Warn("remove: list the pod's containers left", "uid", uid, "err", err)
		return
	}
	for _, ctr := range ctrs {
		if err := ctr.Handle("").Purge(ctx); err != nil {
			r.log.Warn("remove: a container of the pod was left", "container", ctr.ID, "err", err)
			continue
		}
		r.tasks.RemoveStaleShim(ctr.ID, r.log)
		_ = cgroupfs.Remove(filepath.Join("/", r.cfg.Namespace, ctr.ID))
		_ = cgroupfs.Remove(filepath.Join(sandbox.CgroupPath(r.cfg.Namespace, uid), ctr.ID))
		r.log.Warn("remove: deleted a container of the pod that its adoption did not find", "container", ctr.ID)
	}
	if len(ctrs) > 0 {
		_ = cgroupfs.Sweep(sandbox.CgroupPath(r.cfg.Namespace, uid))
	}
}
