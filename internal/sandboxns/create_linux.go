package sandboxns

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"
)

// Create makes new namespaces of the given kinds and pins each one at
// dir/<kind>, returning the pinned path for every kind.
//
// The namespaces are unshared on a throwaway OS thread, so the calling
// goroutine and the rest of the process keep their own namespaces. If UTS is
// among kinds and hostname is not empty, the new UTS namespace gets that
// hostname (hostname is ignored otherwise). If Net is among kinds, the
// loopback interface of the new network namespace is brought up.
//
// dir is created with mode 0700 if it does not exist. The pin files must not
// exist yet: Create never replaces a pinned namespace. On any failure every
// pin Create made is unmounted and removed again before the error is
// returned. Create needs CAP_SYS_ADMIN.
func Create(dir string, kinds []Kind, hostname string) (map[Kind]string, error) {
	flags, err := cloneFlags(kinds)
	if err != nil {
		return nil, err
	}
	madeDir, err := ensureDir(dir)
	if err != nil {
		return nil, err
	}

	paths := make(map[Kind]string, len(kinds))
	undo := func() {
		for _, p := range paths {
			_ = unpin(p)
		}
		if madeDir {
			_ = os.Remove(dir)
		}
	}

	for _, k := range kinds {
		p := filepath.Join(dir, string(k))
		if err := createPinFile(p); err != nil {
			undo()
			return nil, err
		}
		paths[k] = p
	}

	setHostname := hostname != "" && slices.Contains(kinds, UTS)
	err = onThrowawayThread(func() error {
		if err := unix.Unshare(flags); err != nil {
			return fmt.Errorf("sandboxns: unshare: %w", err)
		}
		if setHostname {
			if err := unix.Sethostname([]byte(hostname)); err != nil {
				return fmt.Errorf("sandboxns: set hostname %q: %w", hostname, err)
			}
		}
		if flags&unix.CLONE_NEWNET != 0 {
			if err := loopbackUp(); err != nil {
				return err
			}
		}
		for _, k := range kinds {
			if err := bindThreadNS(k, paths[k]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		undo()
		return nil, err
	}
	return paths, nil
}

// ensureDir creates dir (and its parents) with mode 0700 unless it exists
// already, and reports whether it created it.
func ensureDir(dir string) (bool, error) {
	if _, err := os.Stat(dir); err == nil {
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("sandboxns: create dir: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, fmt.Errorf("sandboxns: create dir: %w", err)
	}
	return true, nil
}

// createPinFile creates the empty mount point for a pin. It fails if path
// exists, so an existing pin is never shadowed.
func createPinFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("sandboxns: create pin file: %w", err)
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(path)
		return fmt.Errorf("sandboxns: create pin file: %w", err)
	}
	return nil
}

// bindThreadNS bind-mounts the calling thread's namespace of kind k onto
// path. The caller must be locked to its OS thread.
func bindThreadNS(k Kind, path string) error {
	src := "/proc/thread-self/ns/" + string(k)
	if err := unix.Mount(src, path, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("sandboxns: pin %s namespace at %s: %w", k, path, err)
	}
	return nil
}
