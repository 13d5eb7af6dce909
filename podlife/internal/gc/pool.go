package gc

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/podlife/podlife/podlife/internal/cgroupfs"
	"github.com/podlife/podlife/podlife/internal/layout"
	"github.com/podlife/podlife/podlife/internal/poddir"
)

// poolMember is the part of a warm pool member's record the collection reads.
type poolMember struct {
	UID string `json:"uid"`
}

// collectPool removes the warm pool members (podlife.Runtime.Prewarm) whose process died: a
// member's directory is flocked (its adoption lock) by the process that keeps it, for as long
// as it lives. It adds the live members' UIDs to known (their containers, leases and IP
// leases are left alone) and returns how many live members' records it could not read. A
// member taken by a pod leaves a symbolic link to the pod's directory: it goes once dangling.
func (r *Collector) collectPool(ctx context.Context, known map[string]bool) (unreadable int) {
	root := layout.PoolDir(r.StateDir)
	entries, err := os.ReadDir(root)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			r.Log.Warn("startup garbage collection: list the warm pool", "err", err)
			return 1
		}
		return 0
	}
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if e.Type()&fs.ModeSymlink != 0 {
			if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
				_ = os.Remove(dir)
			}
			continue
		}
		if !e.IsDir() {
			continue
		}
		if !poddir.IsRemoving(e.Name()) {
			lock, err := poddir.LockAdoption(dir)
			if errors.Is(err, poddir.ErrLocked) {
				var m poolMember
				if err := poddir.ReadJSON(filepath.Join(dir, layout.PoolMemberFile), &m); err != nil || m.UID == "" {
					r.Log.Warn("startup garbage collection: a live warm pool member's record is unreadable; left alone", "dir", dir, "err", err)
					unreadable++
					continue
				}
				known[m.UID] = true
				continue
			}
			if err != nil {
				r.Log.Warn("startup garbage collection: warm pool member's lock", "dir", dir, "err", err)
				unreadable++
				continue
			}
			defer lock.Close()
		}
		if m, ok := r.deadMember(dir); ok {
			r.purgeMember(ctx, m.UID)
		}
		if err := r.removeLeftDir(ctx, dir); err != nil {
			r.Log.Warn("startup garbage collection: could not remove a warm pool member whose process died", "dir", dir, "err", err)
			continue
		}
		r.Log.Warn("startup garbage collection: removed a warm pool member whose process died", "dir", dir)
	}
	return unreadable
}

// ShimEnder is what Tasks may also do (the Runtime's does): end the shims started for the
// containers ids, deleted, that still serve tasks containerd does not know.
type ShimEnder interface {
	EndShims(ctx context.Context, ids []string, log *slog.Logger)
}

// deadMember reads the record of a member whose process died (its lock free); false if it has
// none (killed before it was written: nothing of it was made).
func (r *Collector) deadMember(dir string) (poolMember, bool) {
	var m poolMember
	err := poddir.ReadJSON(filepath.Join(dir, layout.PoolMemberFile), &m)
	return m, err == nil && m.UID != ""
}

// purgeMember deletes the containers of the member uid whose process died (their tasks, shims,
// snapshots, cgroups), before its directory goes. Unlike a pod with a record, a member has no
// removal that knows which of its creates was cut: a process killed while a member's container
// was being created (the member's containers are created at once) leaves that task, which
// containerd does not know, in the member's shim if the shim served another of its tasks then;
// such a shim never exits by itself, nor its logger: it is ended here (ShimEnder). What is left
// (a container of another form, its lease, its IP lease) is collected as any pod's without a
// record.
func (r *Collector) purgeMember(ctx context.Context, uid string) {
	ctrs, err := r.Tasks.Containers(ctx, labelPodUID)
	if err != nil {
		r.Log.Warn("startup garbage collection: list the containers of a warm pool member whose process died", "uid", uid, "err", err)
		return
	}
	var ids []string
	for _, ctr := range ctrs {
		if ctr.Labels[labelPodUID] != uid || !r.ownsObject(ctr.Labels) {
			continue
		}
		ids = append(ids, ctr.ID)
		if err := ctr.Purge(ctx); err != nil {
			r.Log.Warn("startup garbage collection: could not delete a container of a warm pool member whose process died", "container", ctr.ID, "uid", uid, "err", err)
			continue
		}
		r.Log.Warn("startup garbage collection: deleted a container of a warm pool member whose process died", "container", ctr.ID, "uid", uid)
	}
	if len(ids) == 0 {
		return
	}
	if e, ok := r.Tasks.(ShimEnder); ok {
		e.EndShims(ctx, ids, r.Log)
	}
	for _, id := range ids {
		r.Tasks.RemoveStaleShim(id, r.Log)
		_ = cgroupfs.Remove(filepath.Join("/", r.Namespace, id))
		_ = cgroupfs.Remove(filepath.Join(r.PodCgroup(uid), id))
	}
	_ = cgroupfs.Sweep(r.PodCgroup(uid))
}
