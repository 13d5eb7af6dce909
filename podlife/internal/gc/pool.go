package gc

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

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
		if err := r.removeLeftDir(ctx, dir); err != nil {
			r.Log.Warn("startup garbage collection: could not remove a warm pool member whose process died", "dir", dir, "err", err)
			continue
		}
		r.Log.Warn("startup garbage collection: removed a warm pool member whose process died", "dir", dir)
	}
	return unreadable
}
