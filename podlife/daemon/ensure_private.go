package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"

	"github.com/podlife/podlife/podlife/internal/layout"
)

// PrivateEnv is the environment variable that makes the example programs (the podlife CLI, the
// edge agent) use the private containerd of their state dir even when a system containerd
// answers: "1" (or "true") does what their --private-containerd flag does.
const PrivateEnv = "PODLIFE_PRIVATE_CONTAINERD"

// PrivateFromEnv reports whether [PrivateEnv] is set to a true value ("1", "true", ...).
func PrivateFromEnv() bool {
	b, _ := strconv.ParseBool(os.Getenv(PrivateEnv))
	return b
}

// EnsurePrivate makes sure the private containerd of podlife's stateDir ("" means
// podlife.DefaultStateDir) serves, starting it (detached, as podlife.New does when no system
// containerd answers: [Ensure] on [PrivateDir]) if none runs, and returns it. binary is the
// containerd to start ("" looks it up in PATH). A podlife.Runtime that should use its private
// containerd whether or not a system one answers sets podlife.Config.Embedded.IgnoreSystem
// instead (it then starts the daemon again if it dies); giving the returned Address as
// podlife.Config.Address also works, but such a Runtime only reconnects once something starts
// the daemon again.
func EnsurePrivate(ctx context.Context, stateDir, binary string, log *slog.Logger) (Info, error) {
	if stateDir == "" {
		stateDir = layout.DefaultStateDir
	}
	abs, err := filepath.Abs(stateDir)
	if err != nil {
		return Info{}, fmt.Errorf("daemon: state dir: %w", err)
	}
	// 0700 as podlife.New creates it (Ensure would create it 0711 as the daemon dir's parent).
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return Info{}, fmt.Errorf("daemon: state dir: %w", err)
	}
	return Ensure(ctx, Config{Binary: binary, Dir: PrivateDir(abs), Logger: log})
}
