package found

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/layout"
	"github.com/podlife/podlife/podlife/internal/poddir"
)

// Names returns the names of the pods' directories in the state dir (those that are valid
// pod names), in directory order: none if the state dir has no pods directory yet.
func Names(stateDir string) ([]string, error) {
	entries, err := os.ReadDir(layout.PodsDir(stateDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if api.CheckName("pod", e.Name()) != nil {
			continue // not a pod's directory
		}
		out = append(out, e.Name())
	}
	return out, nil
}

// Dir is the directory of the named pod in the state dir.
func Dir(stateDir, name string) string { return filepath.Join(layout.PodsDir(stateDir), name) }

// ReadRecord reads the record of the named pod (a valid name) into rec, or returns an error
// wrapping api.ErrNotFound if the state directory has no such pod.
func ReadRecord(stateDir, name string, rec any) error {
	if err := poddir.ReadJSON(filepath.Join(Dir(stateDir, name), layout.RecordFile), rec); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("pod %q: %w", name, api.ErrNotFound)
		}
		return fmt.Errorf("pod %q: %w", name, err)
	}
	return nil
}

// TaskState is what containerd says of a container's task: its status, or an error if the
// container or its task cannot be loaded.
type TaskState func(ctx context.Context, id string) (ctrd.Status, error)

// Phase computes a pod's phase from its containers' statuses (the caller's rules, for a pod
// whose containers are not restarted).
type Phase func(initStatuses, statuses []api.ContainerStatus) api.Phase

// Reconcile corrects st, the last status an unmanaged pod's manager (ownerPID, gone) wrote,
// with what containerd knows now: a container whose task ended is terminated; nothing is
// ready. exits has the exit statuses of tasks just deleted (by container ID), which containerd
// no longer knows.
func Reconcile(ctx context.Context, state TaskState, phase Phase, ownerPID int, st *api.PodStatus, exits map[string]ctrd.ExitStatus) {
	if st.Reason == "" {
		st.Reason = "Unmanaged"
		st.Message = fmt.Sprintf("the process that managed the pod (pid %d) is gone: nothing supervises it", ownerPID)
	}
	fix := func(cs []api.ContainerStatus) {
		for i := range cs {
			c := &cs[i]
			c.Ready = false
			if c.State.Running == nil {
				continue
			}
			started := c.State.Running.StartedAt
			id := strings.TrimPrefix(c.ContainerID, "containerd://")
			term := &api.StateTerminated{ExitCode: -1, Reason: "Unknown", StartedAt: started}
			if s, ok := exits[id]; ok {
				term = api.TerminatedAt(int(s.ExitCode()), started, s.ExitTime())
			} else if s, err := state(ctx, id); err == nil {
				if s.Status == ctrd.Running || s.Status == ctrd.Paused {
					continue
				}
				term = api.TerminatedAt(int(s.ExitStatus), started, s.ExitTime)
			}
			c.State = api.ContainerState{Terminated: term}
		}
	}
	fix(st.InitContainerStatuses)
	fix(st.ContainerStatuses)
	fix(st.EphemeralContainerStatuses)
	st.Phase = phase(st.InitContainerStatuses, st.ContainerStatuses)
	for i := range st.Conditions {
		if st.Conditions[i].Type == api.PodReady || st.Conditions[i].Type == api.ContainersReady {
			st.Conditions[i].Status = api.ConditionFalse
		}
	}
}
