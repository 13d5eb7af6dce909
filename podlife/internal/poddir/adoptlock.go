package poddir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// adoptLockFile, in a pod's directory, is flocked by the process that adopts the pod, for as long
// as it manages it: of two processes adopting at once, one gets it, the other podlife.ErrManaged.
const adoptLockFile = "adopt.lock"

// ErrLocked: another process holds the pod's adoption lock.
var ErrLocked = errors.New("adoption lock held")

// LockAdoption takes the adoption lock of the pod in dir without waiting.
func LockAdoption(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, adoptLockFile), os.O_CREATE|os.O_RDWR|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("adoption lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, fmt.Errorf("adoption lock: %w", err)
	}
	return f, nil
}
