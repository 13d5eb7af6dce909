package ctrd

import (
	"context"
	"fmt"
	"net"
	"time"

	taskv2 "github.com/containerd/containerd/api/runtime/task/v2"
	taskv3 "github.com/containerd/containerd/api/runtime/task/v3"
	"github.com/containerd/ttrpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ShimWait asks the shim serving on socket directly, over ttrpc, for the exit of the process of
// task id (for use while containerd is away). It tries the task API v3 (shims of containerd
// 2.x), then v2 (1.6, 1.7).
func ShimWait(ctx context.Context, socket, id string) (uint32, time.Time, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return 0, time.Time{}, err
	}
	tc := ttrpc.NewClient(conn)
	defer tc.Close()
	r3, err := taskv3.NewTTRPCTaskClient(tc).Wait(ctx, &taskv3.WaitRequest{ID: id})
	if err == nil {
		return r3.GetExitStatus(), r3.GetExitedAt().AsTime(), nil
	}
	if status.Code(err) != codes.Unimplemented {
		return 0, time.Time{}, fmt.Errorf("shim wait: %w", err)
	}
	r2, err := taskv2.NewTTRPCTaskClient(tc).Wait(ctx, &taskv2.WaitRequest{ID: id})
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("shim wait (task API v2): %w", err)
	}
	return r2.GetExitStatus(), r2.GetExitedAt().AsTime(), nil
}
