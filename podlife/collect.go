package podlife

import (
	"context"
	"log/slog"

	"github.com/podlife/podlife/podlife/internal/gc"
	"github.com/podlife/podlife/podlife/internal/layout"
	"github.com/podlife/podlife/podlife/internal/sandbox"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/teardown"
)

// labelStateDir is the state directory of the Runtime that created a containerd object: startup
// garbage collection deletes only objects of its own state directory (see package gc).
const labelStateDir = layout.LabelStateDir

// collect is New's startup garbage collection (see gc.Collector.Collect): what processes that
// died left of pods they were creating or removing.
func (r *Runtime) collect(ctx context.Context) {
	c := gc.Collector{
		StateDir: r.cfg.StateDir, RealDir: r.realDir, Namespace: r.cfg.Namespace,
		PodCgroup: func(uid string) string { return sandbox.CgroupPath(r.cfg.Namespace, uid) },
		Network:   r.network, Tasks: gcTasks{r.tasks, r.address, r.cfg.Namespace}, Log: r.log,
	}
	c.Collect(r.ctx(ctx))
}

// gcTasks is the Runtime's containerd seam as package gc needs it (with gc.ShimEnder).
type gcTasks struct {
	tasks              tasks.Runtime
	address, namespace string // containerd's socket and namespace: the shims' sockets derive from them
}

// Containers lists the containers that have the label key.
func (t gcTasks) Containers(ctx context.Context, key string) ([]gc.Container, error) {
	found, err := t.tasks.Containers(ctx, nil, key)
	if err != nil {
		return nil, err
	}
	out := make([]gc.Container, len(found))
	for i, f := range found {
		out[i] = gc.Container{ID: f.ID, Labels: f.Labels, Purge: func(ctx context.Context) error {
			return f.Handle("").Purge(ctx)
		}}
	}
	return out, nil
}

// Leases lists the leases that have the label key.
func (t gcTasks) Leases(ctx context.Context, key string) ([]gc.Lease, error) {
	found, err := t.tasks.Leases(ctx, key)
	if err != nil {
		return nil, err
	}
	out := make([]gc.Lease, len(found))
	for i, l := range found {
		out[i] = gc.Lease{ID: l.ID, Labels: l.Labels}
	}
	return out, nil
}

// DeleteLease deletes the lease id.
func (t gcTasks) DeleteLease(ctx context.Context, id string) error {
	return t.tasks.DeleteLease(ctx, id)
}

// RemoveStaleShim removes a shim group's stale socket.
func (t gcTasks) RemoveStaleShim(group string, log *slog.Logger) { t.tasks.RemoveStaleShim(group, log) }

// EndShims ends the shims of a warm pool member's containers ids, deleted, that serve tasks
// containerd does not know (see teardown.EndShims).
func (t gcTasks) EndShims(ctx context.Context, ids []string, log *slog.Logger) {
	sockets := make([]string, len(ids))
	for i, id := range ids {
		sockets[i] = tasks.ShimSocketPath(t.address, t.namespace, id) // the shim group is one of them
	}
	teardown.EndShims(ctx, t.namespace, ids, sockets, log.With("by", "startup garbage collection"))
}
