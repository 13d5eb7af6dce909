package podlife

import (
	"context"

	"github.com/podlife/podlife/podlife/internal/endpoint"
)

// revive makes sure a containerd answers at r.address again, for the reconnect loop (see
// endpoint.Revive): the private containerd of the state dir is started again if it died; a
// configured or system address is only checked. The error wraps ErrUnavailable.
func (r *Runtime) revive(ctx context.Context) error {
	return endpoint.Revive(ctx, r.endpoint(), endpoint.Conn{Address: r.address, Private: r.private})
}
