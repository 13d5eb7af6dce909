package cni

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Bounds of the back-off between attempts to take the state-dir flock while
// another process holds it.
const (
	lockPollMin = time.Millisecond
	lockPollMax = 20 * time.Millisecond
)

// stateLock serialises CNI operations on one state directory: a one-slot
// semaphore orders the goroutines of this process, and an exclusive flock on
// the lock file orders them with other processes (and with other stateLocks
// in this process, as each acquisition opens its own file description).
type stateLock struct {
	sem  chan struct{}
	path string
	// held is the locked file while a caller holds the lock: read and written only by that
	// caller (the semaphore orders them), for the plugins it runs (see pluginExec).
	held *os.File
}

// newStateLock returns a lock on the file at path, created on first use.
func newStateLock(path string) *stateLock {
	return &stateLock{sem: make(chan struct{}, 1), path: path}
}

// lock blocks until it holds both locks or ctx is done. The returned func
// releases them.
func (l *stateLock) lock(ctx context.Context) (func(), error) {
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("lock %s: %w", l.path, ctx.Err())
	}
	f, err := l.flock(ctx)
	if err != nil {
		<-l.sem
		return nil, err
	}
	l.held = f
	return func() {
		l.held = nil
		_ = f.Close() // drops the flock, once no plugin holds its description
		<-l.sem
	}, nil
}

// heldFile is the locked file, for the caller that holds the lock (nil for others: they must
// not call it while another holds it).
func (l *stateLock) heldFile() *os.File { return l.held }

// flock opens the lock file and takes an exclusive flock on it, polling with
// back-off so that ctx can interrupt the wait.
func (l *stateLock) flock(ctx context.Context) (*os.File, error) {
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock: %w", err)
	}
	wait := lockPollMin
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			_ = f.Close()
			return nil, fmt.Errorf("flock %s: %w", l.path, err)
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			_ = f.Close()
			return nil, fmt.Errorf("flock %s: %w", l.path, ctx.Err())
		}
		wait = min(2*wait, lockPollMax)
	}
}
