package gc

import (
	"github.com/podlife/podlife/podlife/internal/poddir"
)

// tornLeft reports whether dir's record, which ReadJSON failed to read with err, was cut short
// by a crash of the host and is no live pod's: empty or cut short (poddir.IsTorn: a pod taken
// from a warm pool has its first record synced while its processes start), with its adoption
// lock free (the process that took the member holds it while it lives). Such a directory is a
// half-created pod's: its processes died with the host.
func tornLeft(dir string, err error) bool {
	if err == nil || !poddir.IsTorn(err) {
		return false
	}
	lock, lerr := poddir.LockAdoption(dir)
	if lerr != nil {
		return false
	}
	_ = lock.Close()
	return true
}
