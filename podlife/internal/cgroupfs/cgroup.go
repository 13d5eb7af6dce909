package cgroupfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Limits are a pod's resource limits, as podlife.Resources holds them.
type Limits struct {
	CPULimit    int64 // millicores: a CFS quota
	CPURequest  int64 // millicores: CPU shares (a weight on cgroup v2)
	MemoryLimit int64 // bytes
}

// Root is where the cgroup hierarchies are mounted.
const Root = "/sys/fs/cgroup"

// Path is the container's cgroup under containerd's default layout (cgroupfs driver).
func Path(namespace, id string) string {
	return filepath.Join("/", namespace, id)
}

// Remove removes a deleted container's cgroup if runc left it behind, in every hierarchy
// (see Sweep): under load, runc's rmdir can run while the killed process is still leaving
// the cgroup, and a runc create cut short (its client killed, containerd finishing or undoing
// the create) can leave it under some v1 controllers only, not the pids one. Only empty
// cgroups are removed (rmdir); the common case, nothing left, costs one rmdir per hierarchy.
func Remove(path string) error {
	return Sweep(path)
}

// Sweep removes a container's cgroup in every hierarchy where it exists (rmdir: empty
// cgroups only), retrying while the last process leaves it. Unlike Remove it does not
// take the pids hierarchy as a sign for the others: a failed or cut-short runc create can leave
// the cgroup under some controllers only (cpuset first, not pids).
func Sweep(path string) error {
	dirs := []string{filepath.Join(Root, path)}
	if hs, err := os.ReadDir(Root); err == nil {
		for _, h := range hs {
			if h.IsDir() { // co-mounted controllers appear as symlinks too
				dirs = append(dirs, filepath.Join(Root, h.Name(), path))
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

// OOMKilled tells whether the kernel's OOM killer killed a process of the cgroup (read at exit,
// before the task is deleted): the "oom_kill" counter of memory.events (cgroup v2) or of
// memory.oom_control (v1).
func OOMKilled(path string) bool {
	for _, f := range []string{
		filepath.Join(Root, path, "memory.events"),
		filepath.Join(Root, "memory", path, "memory.oom_control"),
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
