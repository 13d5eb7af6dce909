package daemon

import (
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"path/filepath"
)

// maxSocketPath is the longest path a unix socket address can hold on
// Linux: sun_path is 108 bytes including the terminating NUL.
const maxSocketPath = 107

// ErrSocketPathTooLong is returned by [Start] when a socket under
// [Config.Dir] would not fit in a unix socket address.
var ErrSocketPathTooLong = errors.New("daemon: socket path too long")

// Config describes the containerd to start.
type Config struct {
	// Binary is the containerd executable. Empty means "containerd" looked
	// up in PATH.
	Binary string

	// Dir holds everything the daemon owns: its root (Dir/root), its
	// state (Dir/state), its socket (Dir/containerd.sock) and the
	// generated config.toml. It is required and created if missing. Keep it
	// short: unix socket paths are limited to 107 bytes, which leaves 85 for
	// Dir (the longest socket is Dir/containerd.sock.ttrpc).
	Dir string

	// Logger receives every line the daemon writes, at debug level.
	// Nil discards them.
	Logger *slog.Logger

	// LogFile, if set, also receives the daemon's output, appended.
	LogFile string

	// Env is added to the daemon's environment (later entries win). PATH
	// is prefixed with the directory of Binary so that the shim next to it
	// (containerd-shim-runc-v2) is found first.
	Env []string
}

// Address returns the gRPC socket a daemon started with Config.Dir dir serves, so that other
// processes can find a daemon started by one of them.
func Address(dir string) string { return newPaths(dir).socket }

// paths are the files a daemon uses under Config.Dir.
type paths struct {
	dir, root, state, config, socket, ttrpc string
}

func newPaths(dir string) paths {
	return paths{
		dir:    dir,
		root:   filepath.Join(dir, "root"),
		state:  filepath.Join(dir, "state"),
		config: filepath.Join(dir, "config.toml"),
		socket: filepath.Join(dir, "containerd.sock"),
		ttrpc:  filepath.Join(dir, "containerd.sock.ttrpc"),
	}
}

// resolve fills in defaults and validates c, returning the absolute binary
// path and the daemon's paths.
func (c Config) resolve() (Config, paths, error) {
	if c.Dir == "" {
		return c, paths{}, errors.New("daemon: Config.Dir is required")
	}
	dir, err := filepath.Abs(c.Dir)
	if err != nil {
		return c, paths{}, fmt.Errorf("daemon: resolve dir: %w", err)
	}
	c.Dir = dir
	p := newPaths(dir)
	for _, s := range []string{p.socket, p.ttrpc} {
		if len(s) > maxSocketPath {
			return c, paths{}, fmt.Errorf("%w: %q is %d bytes, at most %d fit; use a shorter Dir such as one from os.MkdirTemp(\"\", \"plt-\")",
				ErrSocketPathTooLong, s, len(s), maxSocketPath)
		}
	}

	bin := c.Binary
	if bin == "" {
		bin = "containerd"
	}
	bin, err = exec.LookPath(bin)
	if err != nil {
		return c, paths{}, fmt.Errorf("daemon: find containerd binary: %w", err)
	}
	if c.Binary, err = filepath.Abs(bin); err != nil {
		return c, paths{}, fmt.Errorf("daemon: resolve binary: %w", err)
	}

	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c, p, nil
}
