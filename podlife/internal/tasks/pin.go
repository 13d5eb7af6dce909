package tasks

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/podlife/podlife/internal/sandboxns"
)

// errTargetChanged: the process whose namespace was pinned was not (or no longer) the target
// container's.
var errTargetChanged = errors.New("the target's process changed while its namespace was pinned")

// PinContainerNamespace pins the namespace of kind k of process pid, then checks the pin: the
// process now at pid is in the cgroup at cgroup and in the pinned namespace. A PID read from a
// task can name another process by the time it is used (the task's process exited and was
// reaped, the PID reused); the check makes sure the pin holds the container's namespace, which
// the pin then keeps alive whatever the process does next.
func (Containerd) PinContainerNamespace(dir string, k sandboxns.Kind, pid int, cgroup string) (string, error) {
	path, err := sandboxns.PinProcess(dir, k, pid)
	if err != nil {
		return "", err
	}
	if err := checkPinned(path, pid, k, cgroup); err != nil {
		if uerr := sandboxns.Remove(dir); uerr != nil {
			err = errors.Join(err, uerr)
		}
		return "", err
	}
	return path, nil
}

// checkPinned reports whether process pid is in cgroup (in one of the hierarchies) and its
// namespace of kind k is the one pinned at path.
func checkPinned(path string, pid int, k sandboxns.Kind, cgroup string) error {
	proc := filepath.Join("/proc", strconv.Itoa(pid))
	b, err := os.ReadFile(filepath.Join(proc, "cgroup"))
	if err != nil {
		return fmt.Errorf("process %d: %w: %w", pid, errTargetChanged, err)
	}
	if !inCgroup(b, cgroup) {
		return fmt.Errorf("process %d is not in cgroup %s: %w", pid, cgroup, errTargetChanged)
	}
	var pinned, now syscall.Stat_t
	if err := syscall.Stat(path, &pinned); err != nil {
		return fmt.Errorf("stat pinned namespace: %w", err)
	}
	if err := syscall.Stat(filepath.Join(proc, "ns", string(k)), &now); err != nil {
		return fmt.Errorf("process %d: %w: %w", pid, errTargetChanged, err)
	}
	if pinned.Dev != now.Dev || pinned.Ino != now.Ino {
		return fmt.Errorf("process %d: %w", pid, errTargetChanged)
	}
	return nil
}

// inCgroup reports whether /proc/<pid>/cgroup content b has cgroup as the path of one of its
// hierarchies ("ID:controllers:PATH" lines).
func inCgroup(b []byte, cgroup string) bool {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		parts := bytes.SplitN(sc.Bytes(), []byte(":"), 3)
		if len(parts) == 3 && string(parts[2]) == cgroup {
			return true
		}
	}
	return false
}
