package cni

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// Two stateLocks on one path stand for two processes: each acquisition
// opens its own file description, and flock excludes across those exactly
// as it does across processes.
func TestStateLockExcludesOtherHolders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cni.lock")
	a, b := newStateLock(path), newStateLock(path)
	ctx := context.Background()

	unlockA, err := a.lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for name, l := range map[string]*stateLock{"same lock": a, "other lock": b} {
		short, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
		_, err := l.lock(short)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: got %v while held, want deadline exceeded", name, err)
		}
	}

	acquired := make(chan func())
	go func() {
		unlock, err := b.lock(ctx)
		if err != nil {
			t.Error(err)
			close(acquired)
			return
		}
		acquired <- unlock
	}()
	select {
	case <-acquired:
		t.Fatal("acquired while held")
	case <-time.After(20 * time.Millisecond):
	}
	unlockA()
	select {
	case unlockB := <-acquired:
		if unlockB != nil {
			unlockB()
		}
	case <-time.After(2 * time.Second):
		t.Fatal("not acquired after release")
	}
}
