package endpoint

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"

	"github.com/containerd/errdefs"

	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/internal/ctrd"
)

// Config is what Connect and Revive need of a Runtime's Config (its defaults applied).
type Config struct {
	// Address is the configured containerd socket, "" for System, then the private one.
	Address string
	// System is the system containerd's socket, tried when Address is "".
	System string
	// Namespace and Snapshotter are the Runtime's (see ctrd.Dial).
	Namespace, Snapshotter string
	// Disable and IgnoreSystem are the Config's Embedded.Disable and Embedded.IgnoreSystem;
	// Binary its Embedded.Binary.
	Disable, IgnoreSystem bool
	Binary                string
	// StateDir is the state dir whose private containerd is used.
	StateDir string
	Log      *slog.Logger
}

// Conn is the containerd a Runtime uses.
type Conn struct {
	Client  *ctrd.Client
	Address string // the socket in use
	Private bool   // Address is the private containerd of the state dir
}

// Connect dials containerd: the configured address, or the system socket, or the private
// containerd of the state dir, which it starts if none runs (with IgnoreSystem, the system
// socket is not tried). A containerd older than 2.0 at a configured or system address is
// warned about in the log (see daemon.WarnIfOld).
func Connect(ctx context.Context, cfg Config) (Conn, error) {
	addr := cfg.Address
	explicit := addr != ""
	if !explicit {
		addr = cfg.System
	}
	if !cfg.IgnoreSystem {
		c, err := ctrd.Dial(ctx, addr, cfg.Namespace, cfg.Snapshotter)
		if err == nil {
			daemon.WarnIfOld(ctx, cfg.Log, c.Version, addr)
			return Conn{Client: c, Address: addr}, nil
		}
		if explicit || cfg.Disable {
			return Conn{}, fmt.Errorf("podlife: containerd at %s: %w", addr, err)
		}
	}
	// Twice: a private containerd found serving may stop (daemon stop, a crash) before the
	// dial; the second Ensure then waits for the stop to finish and starts it again.
	for attempt := 0; ; attempt++ {
		info, err := ensurePrivate(ctx, cfg)
		if errors.Is(err, exec.ErrNotFound) {
			if cfg.IgnoreSystem {
				return Conn{}, fmt.Errorf("podlife: no containerd binary is installed to start the private containerd (embedded.ignoreSystem): %w", err)
			}
			return Conn{}, fmt.Errorf("podlife: no containerd answers at %s and no containerd binary is installed to start one: %w", addr, err)
		}
		if err != nil {
			return Conn{}, err
		}
		c, err := ctrd.Dial(ctx, info.Address, cfg.Namespace, cfg.Snapshotter)
		if err == nil {
			return Conn{Client: c, Address: info.Address, Private: true}, nil
		}
		if attempt == 1 || ctx.Err() != nil {
			return Conn{}, fmt.Errorf("podlife: private containerd at %s (its log: %s): %w", info.Address, info.LogFile, err)
		}
		cfg.Log.Warn("the private containerd does not answer; ensuring it again", "address", info.Address, "err", err)
	}
}

// ensurePrivate makes sure the private containerd of the state dir serves, starting it
// (detached, under its start lock) if it does not; see daemon.Ensure.
func ensurePrivate(ctx context.Context, cfg Config) (daemon.Info, error) {
	info, err := daemon.Ensure(ctx, daemon.Config{Binary: cfg.Binary, Dir: daemon.PrivateDir(cfg.StateDir), Logger: cfg.Log})
	if err != nil {
		return daemon.Info{}, fmt.Errorf("podlife: private containerd: %w", err)
	}
	if info.Started {
		cfg.Log.Info("started the private containerd", "address", info.Address, "pid", info.PID, "log", info.LogFile)
	}
	return info, nil
}

// Revive makes sure a containerd answers at c.Address again, for the reconnection loop. For
// the private containerd of the state dir, it starts it again if it died, on the same root and
// state and under the same start lock as Connect (daemon.Ensure): the shims of running
// containers are still there and containerd reloads them; if another process restarted it
// first, Revive just finds it. For a configured or system address it only checks that
// containerd answers; podlife never starts those. The error wraps errdefs.ErrUnavailable.
func Revive(ctx context.Context, cfg Config, c Conn) error {
	if c.Private {
		if _, err := ensurePrivate(ctx, cfg); err != nil {
			return fmt.Errorf("%w (%w)", err, errdefs.ErrUnavailable)
		}
		return nil
	}
	cl, err := ctrd.Dial(ctx, c.Address, cfg.Namespace, cfg.Snapshotter)
	if err != nil {
		return fmt.Errorf("podlife: containerd at %s: %w: %w", c.Address, errdefs.ErrUnavailable, err)
	}
	_ = cl.Close()
	return nil
}
