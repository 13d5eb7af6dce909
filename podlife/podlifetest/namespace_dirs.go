package podlifetest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// runcRoot is where containerd's runc shim keeps runc's state, one
// directory per containerd namespace, whatever the daemon's state dir.
const runcRoot = "/run/containerd/runc"

// cgroupRoot is where the cgroup hierarchies are mounted.
const cgroupRoot = "/sys/fs/cgroup"

// RemoveNamespaceDirs removes the directories that outlive the last
// container of containerd namespace ns: runc's state directory
// /run/containerd/runc/<ns> and the cgroup /<ns> (the client's default
// cgroup parent) in every cgroup hierarchy. They are global, shared by every
// containerd on the host, so only call it for a namespace of your own.
// Directories are only removed when empty (cgroups: without processes or
// children); the others are reported in the error. Missing ones are fine.
func RemoveNamespaceDirs(ns string) error {
	if ns == "" || ns == "." || ns == ".." || filepath.Base(ns) != ns {
		return fmt.Errorf("podlifetest: invalid namespace %q", ns)
	}
	dirs := []string{filepath.Join(runcRoot, ns), filepath.Join(cgroupRoot, ns)}
	hierarchies, err := os.ReadDir(cgroupRoot)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("podlifetest: %w", err)
	}
	for _, h := range hierarchies {
		if h.IsDir() { // skips the symlinks of co-mounted controllers
			dirs = append(dirs, filepath.Join(cgroupRoot, h.Name(), ns))
		}
	}
	var errs []error
	for _, d := range dirs {
		if err := os.Remove(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("podlifetest: remove namespace %s dirs: %w", ns, err)
	}
	return nil
}
