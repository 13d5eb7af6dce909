package ctrd

import "context"

// SnapshotUsage returns the bytes a container's writable snapshot (key, its id) takes: what
// the container wrote over its image, as the client's snapshotter measures it (the kubelet's
// container rootfs usage). An error wraps errdefs.ErrNotFound if there is no such snapshot.
func (c *Client) SnapshotUsage(ctx context.Context, key string) (int64, error) {
	u, err := c.c.SnapshotService(c.snapshotter).Usage(ctx, key)
	if err != nil {
		return 0, err
	}
	return u.Size, nil
}
