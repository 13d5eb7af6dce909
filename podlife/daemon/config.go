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

	// Logger receives every line a daemon started by [Start] writes, at
	// debug level, and the package's own messages (start, stop). A daemon
	// started by [Ensure] writes its output to LogFile instead, since it
	// outlives the process. Nil discards them.
	Logger *slog.Logger

	// LogFile, if set, also receives the output of a daemon started by
	// [Start], appended. A daemon started by [Ensure] writes its output
	// there itself; empty means Dir/containerd.log (see [LogFile]).
	LogFile string

	// Env is added to the daemon's environment (later entries win). PATH
	// is prefixed with the directory of Binary so that the shim next to it
	// (containerd-shim-runc-v2) is found first.
	Env []string
}

// Address returns the gRPC socket a daemon started with Config.Dir dir serves, so that other
// processes can find a daemon started by one of them.
func Address(dir string) string { return newPaths(dir).socket }

// LogFile returns the file a daemon started by [Ensure] with Config.Dir dir
// (and no Config.LogFile) writes its output to.
func LogFile(dir string) string { return newPaths(dir).log }

// paths are the files a daemon uses under Config.Dir.
type paths struct {
	dir, root, state, config, socket, ttrpc string
	// Files of a detached daemon (see Ensure): the start lock, the
	// default log file and the PID file.
	lock, log, pid string
}

func newPaths(dir string) paths {
	return paths{
		dir:    dir,
		root:   filepath.Join(dir, "root"),
		state:  filepath.Join(dir, "state"),
		config: filepath.Join(dir, "config.toml"),
		socket: filepath.Join(dir, "containerd.sock"),
		ttrpc:  filepath.Join(dir, "containerd.sock.ttrpc"),
		lock:   filepath.Join(dir, "start.lock"),
		log:    filepath.Join(dir, "containerd.log"),
		pid:    filepath.Join(dir, "containerd.pid"),
	}
}

// resolveDir makes dir absolute and checks that its sockets fit in a unix
// socket address.
func resolveDir(dir string) (paths, error) {
	if dir == "" {
		return paths{}, errors.New("daemon: Config.Dir is required")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return paths{}, fmt.Errorf("daemon: resolve dir: %w", err)
	}
	p := newPaths(dir)
	for _, s := range []string{p.socket, p.ttrpc} {
		if len(s) > maxSocketPath {
			return paths{}, fmt.Errorf("%w: %q is %d bytes, at most %d fit; use a shorter Dir such as one from os.MkdirTemp(\"\", \"plt-\")",
				ErrSocketPathTooLong, s, len(s), maxSocketPath)
		}
	}
	return p, nil
}

// resolve fills in defaults and validates c, returning the absolute binary
// path and the daemon's paths.
func (c Config) resolve() (Config, paths, error) {
	p, err := resolveDir(c.Dir)
	if err != nil {
		return c, paths{}, err
	}
	c.Dir = p.dir
	if err := c.resolveBinary(); err != nil {
		return c, paths{}, err
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c, p, nil
}

// resolveBinary makes c.Binary an absolute path, looking it up in PATH.
func (c *Config) resolveBinary() error {
	bin := c.Binary
	if bin == "" {
		bin = "containerd"
	}
	bin, err := exec.LookPath(bin)
	if err != nil {
		return fmt.Errorf("daemon: find containerd binary: %w", err)
	}
	if c.Binary, err = filepath.Abs(bin); err != nil {
		return fmt.Errorf("daemon: resolve binary: %w", err)
	}
	return nil
}
