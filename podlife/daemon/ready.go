package daemon

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/containerd/containerd/v2/client"
)

const (
	// pollInterval is how often Start checks whether the daemon is up.
	pollInterval = 10 * time.Millisecond
	// probeTimeout bounds one health check.
	probeTimeout = time.Second
)

// waitReady waits until the socket accepts connections and the daemon
// reports it is serving. It dials the socket itself first because gRPC backs
// off for a second after a failed connection attempt.
func (d *Daemon) waitReady(ctx context.Context) error {
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	wait := func() error {
		select {
		case <-d.proc.Done():
			return d.exitError("before serving")
		case <-ctx.Done():
			return fmt.Errorf("daemon: containerd %s (pid %d) did not come up: %w; last output:\n%s",
				d.binary, d.PID(), ctx.Err(), d.out.Tail())
		case <-tick.C:
			return nil
		}
	}

	for !socketAnswers(d.paths.socket) {
		if err := wait(); err != nil {
			return err
		}
	}
	c, err := client.New(d.paths.socket)
	if err != nil {
		return fmt.Errorf("daemon: connect: %w", err)
	}
	d.client = c
	for !isServing(ctx, c) {
		if err := wait(); err != nil {
			return err
		}
	}
	return nil
}

// isServing runs one bounded health check.
func isServing(ctx context.Context, c *client.Client) bool {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	ok, err := c.IsServing(ctx)
	return err == nil && ok
}

// socketAnswers reports whether something accepts connections on the unix
// socket at path.
func socketAnswers(path string) bool {
	conn, err := net.DialTimeout("unix", path, probeTimeout)
	if err != nil {
		return false
	}
	_ = conn.Close()
	return true
}
