package poddir

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/podlife/internal/hostmount"
)

// A pod's directory is created under the shared lock of StateDir/pods.lock, held until its
// pod.json is written; startup garbage collection (podlife/internal/gc) takes the lock exclusively. So a
// directory without pod.json that the collector sees while it holds the lock was left by a
// process that died between the two steps, never one that a live process is filling in.

const (
	podsLockFile   = "pods.lock"
	removingPrefix = ".removing-" // a pod directory renamed out of the way, being deleted
)

// LockPods takes the pods' lock (syscall.LOCK_SH or LOCK_EX) and returns its release, which may
// be called any number of times.
func LockPods(stateDir string, how int) (func(), error) {
	if err := os.MkdirAll(filepath.Join(stateDir, "pods"), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(stateDir, podsLockFile), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	var once sync.Once
	return func() { once.Do(func() { f.Close() }) }, nil // closing releases the lock
}

// Make creates a pod's directory (os.Mkdir's errors) under the pods' shared lock, which the
// returned release gives back: call it once pod.json is written (podlife's writeRecord).
func Make(stateDir, dir string) (func(), error) {
	release, err := LockPods(stateDir, syscall.LOCK_SH)
	if err != nil {
		return nil, err
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		release()
		return nil, err
	}
	failpoint.Hit("run.mkdir")
	return release, nil
}

// Remove deletes a pod's directory: renamed first (one atomic step that frees the name and
// takes pod.json out of ListPods' sight), then deleted without going through a mount (see
// hostmount.RemoveTree: a mount still there fails the delete, naming it). A crash during the deletion
// leaves a .removing- directory, which startup garbage collection deletes.
//
// It holds the pods' lock shared from the rename to the end of the delete: the startup garbage
// collection of another process on the same state dir (exclusive) never takes the .removing-
// directory of a live Remove for one a crash left, and never deletes it under its feet.
func Remove(dir string) error {
	release, err := LockPods(filepath.Dir(filepath.Dir(dir)), syscall.LOCK_SH)
	if err != nil {
		return err
	}
	defer release()
	var b [4]byte
	_, _ = rand.Read(b[:])
	trash := filepath.Join(filepath.Dir(dir), removingPrefix+filepath.Base(dir)+"-"+hex.EncodeToString(b[:]))
	if err := os.Rename(dir, trash); err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	failpoint.Hit("remove.renamed")
	return removeAllHit(trash)
}

// removeAllHit is hostmount.RemoveTree (a delete that never goes through a mount) with a failpoint after
// the first entry is removed, so that a crash test can stop in the middle of the deletion.
func removeAllHit(dir string) error {
	if failpoint.Enabled {
		if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
			if err := hostmount.RemoveTree(filepath.Join(dir, entries[0].Name())); err != nil {
				return err
			}
			failpoint.Hit("remove.removeall")
		}
	}
	return hostmount.RemoveTree(dir)
}

// IsRemoving reports whether a name in StateDir/pods is a pod directory being deleted.
func IsRemoving(name string) bool { return strings.HasPrefix(name, removingPrefix) }
