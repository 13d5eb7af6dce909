package podlife

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// cgroupRoot is where the cgroup hierarchies are mounted.
const cgroupRoot = "/sys/fs/cgroup"

// cgroupPath is the container's cgroup under containerd's default layout (cgroupfs driver).
func cgroupPath(namespace, id string) string {
	return filepath.Join("/", namespace, id)
}

// removeCgroup removes a deleted container's cgroup if runc left it behind, in every hierarchy
// (see sweepCgroup): under load, runc's rmdir can run while the killed process is still leaving
// the cgroup, and a runc create cut short (its client killed, containerd finishing or undoing
// the create) can leave it under some v1 controllers only, not the pids one. Only empty
// cgroups are removed (rmdir); the common case, nothing left, costs one rmdir per hierarchy.
func removeCgroup(path string) error {
	return sweepCgroup(path)
}

// sweepCgroup removes a container's cgroup in every hierarchy where it exists (rmdir: empty
// cgroups only), retrying while the last process leaves it. Unlike removeCgroup it does not
// take the pids hierarchy as a sign for the others: a failed or cut-short runc create can leave
// the cgroup under some controllers only (cpuset first, not pids).
func sweepCgroup(path string) error {
	dirs := []string{filepath.Join(cgroupRoot, path)}
	if hs, err := os.ReadDir(cgroupRoot); err == nil {
		for _, h := range hs {
			if h.IsDir() { // co-mounted controllers appear as symlinks too
				dirs = append(dirs, filepath.Join(cgroupRoot, h.Name(), path))
			}
		}
	}
	var errs []error
	for _, d := range dirs {
		var err error
		for try := 0; try < 20; try++ {
			if err = os.Remove(d); err == nil || errors.Is(err, fs.ErrNotExist) {
				err = nil
				break
			}
			time.Sleep(10 * time.Millisecond) // the last process is leaving the cgroup
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// oomKilled tells whether the kernel's OOM killer killed a process of the cgroup (read at exit,
// before the task is deleted): the "oom_kill" counter of memory.events (cgroup v2) or of
// memory.oom_control (v1).
func oomKilled(path string) bool {
	for _, f := range []string{
		filepath.Join(cgroupRoot, path, "memory.events"),
		filepath.Join(cgroupRoot, "memory", path, "memory.oom_control"),
	} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if n, ok := strings.CutPrefix(line, "oom_kill "); ok {
				return strings.TrimSpace(n) != "0"
			}
		}
	}
	return false
}
