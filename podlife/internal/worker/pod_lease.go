package worker

import (
	"github.com/podlife/podlife/podlife/internal/layout"

	"context"
	"fmt"

	"github.com/containerd/containerd/v2/core/leases"
	"github.com/containerd/errdefs"
)

func (p *Worker) leaseID() string { return leaseID(p.uid) }

// leaseID is the containerd lease holding a pod's snapshots and images while it exists.
func leaseID(podUID string) string { return "podlife-" + podUID }

// leasedCtx makes containerd keep what is created under ctx as the pod's (until Remove).
func leasedCtx(ctx context.Context, p *Worker) context.Context {
	return leases.WithLease(ctx, p.leaseID())
}

func (p *Worker) createLease(ctx context.Context) error {
	return p.rt.Tasks.CreateLease(ctx, p.leaseID(), map[string]string{LabelPod: p.name, LabelPodUID: p.uid, layout.LabelStateDir: p.rt.Cfg.StateDir})
}

func (p *Worker) deleteLease(ctx context.Context) error {
	err := p.rt.Retry(ctx, func() error { return p.rt.Tasks.DeleteLease(ctx, p.leaseID()) })
	if err != nil && !errdefs.IsNotFound(err) {
		return fmt.Errorf("delete lease: %w", err)
	}
	return nil
}
