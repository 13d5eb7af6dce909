package ephemeral

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/internal/sandboxns"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// Target is the running process of an ephemeral container's target container, as the worker
// found it on its loop.
type Target struct {
	Name   string        // the target container's name
	Task   tasks.Task    // the task of its running instance; nil if none runs
	Exited chan struct{} // closed once that instance's exit was recorded
	Cgroup string        // the instance's cgroup
}

// PinTarget pins, in dir, the PID namespace of the target's current process and returns the
// spec options of an ephemeral container that joins the pin ([JoinPID]): the pin is checked to
// hold the target's namespace (its PID may have been reused meanwhile). [Unpin] removes it
// once the ephemeral container's task is created (runc has joined the namespace then).
func PinTarget(rt tasks.Runtime, dir string, t Target) ([]oci.SpecOpts, error) {
	if t.Task == nil {
		return nil, fmt.Errorf("target container %q is not running", t.Name)
	}
	select {
	case <-t.Exited:
		return nil, fmt.Errorf("target container %q is not running", t.Name)
	default:
	}
	pid := t.Task.PID()
	if pid == 0 {
		return nil, fmt.Errorf("target container %q: no process", t.Name)
	}
	path, err := rt.PinContainerNamespace(dir, sandboxns.PID, int(pid), t.Cgroup)
	if err != nil {
		return nil, fmt.Errorf("target container %q: join its PID namespace: %w", t.Name, err)
	}
	return JoinPID(path), nil
}

// Unpin removes the pin PinTarget made in dir; one already gone is not an error.
func Unpin(rt tasks.Runtime, dir string) error {
	err := rt.UnpinNamespaces(dir)
	if err == nil {
		err = os.Remove(dir)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// JoinPID is the spec option of a container that joins the PID namespace pinned at path.
func JoinPID(path string) []oci.SpecOpts {
	return []oci.SpecOpts{oci.WithLinuxNamespace(specs.LinuxNamespace{Type: specs.PIDNamespace, Path: path})}
}
