package remote

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/found"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/podsandbox"
	"github.com/podlife/podlife/podlife/internal/worker/record"
)

// Pods reaches the containers of the pods of a state dir without their worker, whichever
// process manages each, or none: in containerd, and through the FIFOs of their shims.
type Pods struct {
	StateDir  string
	Namespace string        // the containerd namespace
	Tasks     tasks.Runtime // containerd (the Runtime's seam)
}

// ctx returns a context for containerd calls in the namespace.
func (s Pods) ctx(parent context.Context) context.Context {
	return namespaces.WithNamespace(parent, s.Namespace)
}

// Exec runs argv in a running container of a pod in the state directory that this Runtime
// does not manage (see podlife's Pod.Exec): in the container's task, with the process
// settings of its OCI spec. The names are valid ones.
func (s Pods) Exec(ctx context.Context, pod, container string, argv []string, streams api.ExecIO) (int, error) {
	_, ctr, task, err := s.runningTask(ctx, pod, container)
	if err != nil {
		return -1, err
	}
	bg := context.WithoutCancel(s.ctx(ctx))
	ps, err := ctr.ProcessSpec(bg)
	if err != nil {
		return -1, fmt.Errorf("exec in %s/%s: %w", pod, container, err)
	}
	// The shim opens both output FIFOs as soon as any stream is connected: an empty path fails
	// the exec ("opening file \"\" failed").
	if streams.Stdout == nil {
		streams.Stdout = io.Discard
	}
	if streams.Stderr == nil {
		streams.Stderr = io.Discard
	}
	code, err := task.Exec(ctx, bg, *ps, argv, streams, filepath.Join(found.Dir(s.StateDir, pod), "fifo"))
	if err != nil && ctx.Err() == nil {
		err = fmt.Errorf("exec in %s/%s: %w", pod, container, err)
	}
	return code, err
}

// runningTask finds the running instance of a container of a pod in the state directory,
// whichever process manages the pod: its containerd container (ID and handle) and task.
func (s Pods) runningTask(ctx context.Context, pod, container string) (string, tasks.Container, tasks.Task, error) {
	var rec record.Record
	if err := found.ReadRecord(s.StateDir, pod, &rec); err != nil {
		return "", nil, nil, err
	}
	bg := context.WithoutCancel(s.ctx(ctx))
	ctrs, err := s.Tasks.Containers(bg, map[string]string{podsandbox.LabelPodUID: rec.UID, podsandbox.LabelContainer: container})
	if err != nil {
		return "", nil, nil, fmt.Errorf("pod %q: %w", pod, err)
	}
	for _, found := range ctrs {
		ctr := found.Handle("")
		task, err := ctr.LoadTask(bg)
		if err != nil {
			continue
		}
		if st, err := task.Status(bg); err != nil || st.Status != ctrd.Running {
			continue
		}
		return found.ID, ctr, task, nil
	}
	return "", nil, nil, fmt.Errorf("pod %q: no running container %q: %w", pod, container, api.ErrNotFound)
}
