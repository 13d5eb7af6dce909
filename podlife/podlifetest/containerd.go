package podlifetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/namespaces"
	"github.com/containerd/errdefs"

	"github.com/podlife/podlife/podlife/daemon"
)

// closeTimeout bounds Containerd.Close.
const closeTimeout = 30 * time.Second

// Containerd is a private containerd for a test, with a client connected
// to it. Close it when done, for example with t.Cleanup.
type Containerd struct {
	// Daemon is the running daemon.
	Daemon *daemon.Daemon
	// Client is connected to Daemon; Close closes it.
	Client *client.Client

	dir       string
	ownDir    bool
	closeOnce sync.Once
	closeErr  error
}

// StartContainerd starts containerd as [daemon.Start] does and connects a
// client to it. If cfg.Dir is empty, it runs in a new short-named
// temporary directory ("plt-*") that Close removes.
func StartContainerd(ctx context.Context, cfg daemon.Config) (*Containerd, error) {
	c := &Containerd{dir: cfg.Dir}
	if cfg.Dir == "" {
		dir, err := os.MkdirTemp("", "plt-")
		if err != nil {
			return nil, fmt.Errorf("podlifetest: %w", err)
		}
		cfg.Dir, c.dir, c.ownDir = dir, dir, true
	}
	d, err := daemon.Start(ctx, cfg)
	if err != nil {
		c.removeDir()
		return nil, fmt.Errorf("podlifetest: %w", err)
	}
	c.Daemon = d
	c.Client, err = client.New(d.Address())
	if err != nil {
		_ = d.Stop(ctx)
		c.removeDir()
		return nil, fmt.Errorf("podlifetest: connect to containerd: %w", err)
	}
	return c, nil
}

// Dir returns the directory the daemon runs in.
func (c *Containerd) Dir() string { return c.dir }

// Close kills and deletes every task left in any namespace (so that no
// shim survives), closes the client, stops the daemon and, if
// StartContainerd created the directory, unmounts what is left under it and
// removes it. Containers, images and snapshots are not deleted one by one:
// check for leaks with [ContainerdLeaks] before Close. Close is idempotent.
func (c *Containerd) Close() error {
	c.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		defer cancel()
		errs := []error{
			killTasks(ctx, c.Client),
			c.Client.Close(),
			c.Daemon.Stop(ctx),
			c.removeDir(),
		}
		if err := errors.Join(errs...); err != nil {
			c.closeErr = fmt.Errorf("podlifetest: close containerd: %w", err)
		}
	})
	return c.closeErr
}

func (c *Containerd) removeDir() error {
	if !c.ownDir {
		return nil
	}
	return RemoveAll(c.dir)
}

// killTasks kills and deletes every task in every namespace.
func killTasks(ctx context.Context, c *client.Client) error {
	nss, err := c.NamespaceService().List(ctx)
	if err != nil {
		return fmt.Errorf("list namespaces: %w", err)
	}
	var errs []error
	for _, ns := range nss {
		ctx := namespaces.WithNamespace(ctx, ns)
		containers, err := c.Containers(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("list containers in %s: %w", ns, err))
			continue
		}
		for _, ctr := range containers {
			task, err := ctr.Task(ctx, nil)
			if errdefs.IsNotFound(err) {
				continue
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("load task %s in %s: %w", ctr.ID(), ns, err))
				continue
			}
			if _, err := task.Delete(ctx, client.WithProcessKill); err != nil {
				errs = append(errs, fmt.Errorf("delete task %s in %s: %w", ctr.ID(), ns, err))
			}
		}
	}
	return errors.Join(errs...)
}
