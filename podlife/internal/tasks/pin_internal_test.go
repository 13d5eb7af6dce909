package tasks

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/podlife/podlife/internal/sandboxns"
)

// checkPinned accepts a process in the cgroup named and in the pinned namespace, and nothing
// else: another cgroup, another namespace, a process that is gone.
func TestCheckPinned(t *testing.T) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Skip(err)
	}
	parts := strings.SplitN(strings.SplitN(string(b), "\n", 2)[0], ":", 3)
	if len(parts) != 3 {
		t.Skipf("/proc/self/cgroup: %q", b)
	}
	own, pid := parts[2], os.Getpid()
	if err := checkPinned("/proc/self/ns/pid", pid, sandboxns.PID, own); err != nil {
		t.Errorf("this process in its own cgroup and namespace: %v", err)
	}
	if err := checkPinned("/proc/self/ns/pid", pid, sandboxns.PID, own+"/not-this-one"); !errors.Is(err, errTargetChanged) {
		t.Errorf("another cgroup: %v, want errTargetChanged", err)
	}
	if err := checkPinned("/proc/self/ns/net", pid, sandboxns.PID, own); !errors.Is(err, errTargetChanged) {
		t.Errorf("another namespace pinned: %v, want errTargetChanged", err)
	}
	if err := checkPinned("/proc/self/ns/pid", 1<<30, sandboxns.PID, own); !errors.Is(err, errTargetChanged) {
		t.Errorf("a process that is gone: %v, want errTargetChanged", err)
	}
	if inCgroup([]byte("12:pids:/a/b\n0::/x\n"), "/a") || !inCgroup([]byte("12:pids:/a/b\n0::/x\n"), "/x") {
		t.Error("inCgroup matches a path that is not a hierarchy's whole path")
	}
}
