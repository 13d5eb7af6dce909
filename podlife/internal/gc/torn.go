package gc

import (
	"path/filepath"

	"github.com/podlife/podlife/internal/sandboxns"
	"github.com/podlife/podlife/podlife/internal/poddir"
)

// diedWithHost reports whether dir's record, which ReadJSON failed to read with err, is that of
// a pod whose processes died with the host: the record is empty or cut short (poddir.IsTorn:
// only a pod taken from a warm pool writes its first record unsynced, and syncs it while its
// processes start, so only a crash of the host leaves one so), the pod's adoption lock is free
// (no process manages it), and the namespaces it pinned are files without their mounts (the
// mount table does not survive a reboot; a pod that lives keeps them mounted). A pod that pinned
// no namespace gives no such proof and is left alone, as is any record cut short while the
// pod's namespaces are mounted (TestStartupGCUnreadableRecord: a live pod's record cut short by
// other means).
func diedWithHost(dir string, err error) bool {
	if err == nil || !poddir.IsTorn(err) {
		return false
	}
	pinned, mounted, perr := sandboxns.Pinned(filepath.Join(dir, "ns"))
	if perr != nil || !pinned || mounted {
		return false
	}
	lock, lerr := poddir.LockAdoption(dir)
	if lerr != nil {
		return false
	}
	_ = lock.Close()
	return true
}
