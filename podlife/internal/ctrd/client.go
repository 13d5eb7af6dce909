package ctrd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/containerd/containerd/v2/client"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health/grpc_health_v1"
)

// Client is a connection to one containerd, in one namespace, with one snapshotter.
type Client struct {
	c           *client.Client
	snapshotter string
	// cgroups is where Sample reads the running containers' counters (the host's); running
	// are the tasks it saw running.
	cgroups cgroupFS
	running runningPIDs
	// blobs keeps the images' metadata blobs read (see blobCache); nil reads every time.
	blobs *blobCache
}

// Dial connects to the containerd at address, with namespace as the default namespace of every
// call, and checks that it serves (within 5 s). snapshotter is the snapshotter images are
// unpacked for and containers' snapshots made with ("" for containerd's default).
func Dial(ctx context.Context, address, namespace, snapshotter string) (*Client, error) {
	if _, err := os.Stat(address); err != nil {
		return nil, err
	}
	c, err := client.New(address, client.WithDefaultNamespace(namespace), client.WithTimeout(5*time.Second))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if ok, err := c.IsServing(ctx); !ok {
		c.Close()
		return nil, fmt.Errorf("not serving: %w", err)
	}
	return &Client{c: c, snapshotter: snapshotter, cgroups: hostCgroupFS, blobs: newBlobCache(c.ContentStore())}, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.c.Close() }

// Healthy reports whether containerd answers a health check as serving within ctx (a
// fail-fast call: it does not wait for a connection that is down).
func (c *Client) Healthy(ctx context.Context) bool {
	resp, err := c.c.HealthService().Check(ctx, &grpc_health_v1.HealthCheckRequest{})
	return err == nil && resp.GetStatus() == grpc_health_v1.HealthCheckResponse_SERVING
}

// Serving tells the connection to skip the rest of its reconnection back-off, then asks
// containerd whether it serves; it fails if it does not. The connection is kept: gRPC redials
// by itself.
func (c *Client) Serving(ctx context.Context) error {
	if cc, ok := c.c.Conn().(*grpc.ClientConn); ok {
		cc.ResetConnectBackoff()
	}
	ok, err := c.c.IsServing(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("containerd is not serving")
	}
	return nil
}

// ExitStatus is a process's exit as containerd reports it (containerd's type).
type ExitStatus = client.ExitStatus

// Status is a task's status (containerd's type).
type Status = client.Status

// ProcessStatus is the state of a task's process (containerd's type).
type ProcessStatus = client.ProcessStatus

// A task's process states.
const (
	Created = client.Created
	Running = client.Running
	Stopped = client.Stopped
	Paused  = client.Paused
	Pausing = client.Pausing
)

// UnknownExitStatus is the exit code of a process whose exit is not known.
const UnknownExitStatus = client.UnknownExitStatus

// NewExitStatus returns an exit status (for a wait that ended without the process's exit, err
// set, or for a fake).
func NewExitStatus(code uint32, exitedAt time.Time, err error) *ExitStatus {
	return client.NewExitStatus(code, exitedAt, err)
}

// Version returns the version containerd reports ("v2.4.2", "1.6.20~ds1"): what the runtime
// checks with daemon.CheckVersion after it connects.
func (c *Client) Version(ctx context.Context) (string, error) {
	v, err := c.c.Version(ctx)
	if err != nil {
		return "", fmt.Errorf("containerd version: %w", err)
	}
	return v.Version, nil
}
