package podsandbox

import (
	"context"
	"fmt"

	"github.com/containerd/containerd/v2/core/leases"
	"github.com/containerd/errdefs"

	"github.com/podlife/podlife/podlife/internal/layout"
)

// LeaseID is the containerd lease holding a pod's snapshots and images while it exists.
func LeaseID(podUID string) string { return "podlife-" + podUID }

// Leased makes containerd keep what is created under ctx as the pod's (until DeleteLease).
func (s *Sandbox) Leased(ctx context.Context) context.Context {
	return leases.WithLease(ctx, LeaseID(s.uid))
}

// CreateLease creates the pod's lease, labelled with the pod's name and the state dir.
func (s *Sandbox) CreateLease(ctx context.Context, pod, stateDir string) error {
	return s.tasks.CreateLease(ctx, LeaseID(s.uid), map[string]string{LabelPod: pod, LabelPodUID: s.uid, layout.LabelStateDir: stateDir})
}

// DeleteLease deletes the pod's lease (through retry, see the worker's Host.Retry); one gone
// already is not an error.
func (s *Sandbox) DeleteLease(ctx context.Context, retry func(context.Context, func() error) error) error {
	err := retry(ctx, func() error { return s.tasks.DeleteLease(ctx, LeaseID(s.uid)) })
	if err != nil && !errdefs.IsNotFound(err) {
		return fmt.Errorf("delete lease: %w", err)
	}
	return nil
}
