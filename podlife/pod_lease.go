package podlife

import (
	"context"
	"fmt"

	"github.com/containerd/containerd/v2/core/leases"
	"github.com/containerd/errdefs"
)

func (p *podWorker) leaseID() string { return leaseID(p.uid) }

// leaseID is the containerd lease holding a pod's snapshots and images while it exists.
func leaseID(podUID string) string { return "podlife-" + podUID }

// leasedCtx makes containerd keep what is created under ctx as the pod's (until Remove).
func leasedCtx(ctx context.Context, p *podWorker) context.Context {
	return leases.WithLease(ctx, p.leaseID())
}

func (p *podWorker) createLease(ctx context.Context) error {
	return p.rt.tasks.CreateLease(ctx, p.leaseID(), map[string]string{labelPod: p.name, labelPodUID: p.uid, labelStateDir: p.rt.cfg.StateDir})
}

func (p *podWorker) deleteLease(ctx context.Context) error {
	err := p.rt.retry(ctx, func() error { return p.rt.tasks.DeleteLease(ctx, p.leaseID()) })
	if err != nil && !errdefs.IsNotFound(err) {
		return fmt.Errorf("delete lease: %w", err)
	}
	return nil
}
