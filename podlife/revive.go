package podlife

import (
	"context"
	"fmt"

	"github.com/containerd/errdefs"
)

// revive makes sure a containerd answers at r.address again, for the reconnect loop. For the
// private containerd of the state dir, it starts it again if it died, on the same root and state
// and under the same start lock as New (daemon.Ensure): the shims of running containers are still
// there and containerd reloads them; if another process restarted it first, revive just finds it.
// For a configured or system address it only checks that containerd answers; podlife never
// starts those. The error wraps errdefs.ErrUnavailable.
func (r *Runtime) revive(ctx context.Context) error {
	if r.private {
		if _, err := r.ensurePrivate(ctx); err != nil {
			return fmt.Errorf("%w (%w)", err, errdefs.ErrUnavailable)
		}
		return nil
	}
	c, err := dial(ctx, r.address, r.cfg.Namespace, r.cfg.Snapshotter)
	if err != nil {
		return fmt.Errorf("podlife: containerd at %s: %w: %w", r.address, errdefs.ErrUnavailable, err)
	}
	_ = c.Close()
	return nil
}
