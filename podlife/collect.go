package podlife

import (
	"context"
	"log/slog"

	"github.com/podlife/podlife/podlife/internal/gc"
	"github.com/podlife/podlife/podlife/internal/layout"
	"github.com/podlife/podlife/podlife/internal/sandbox"
	"github.com/podlife/podlife/podlife/internal/tasks"
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
		Network:   r.network, Tasks: gcTasks{r.tasks}, Log: r.log,
	}
	c.Collect(r.ctx(ctx))
}

// gcTasks is the Runtime's containerd seam as package gc needs it.
type gcTasks struct{ tasks tasks.Runtime }

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
