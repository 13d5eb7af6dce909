package logdriver

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/podlife/podlife/internal/crilog"
)

// The shared logger: one process per state directory writes the output of all its containers.
// The process the shim starts per container (the hand-off) passes the container's output pipes
// to it over a unix socket (SCM_RIGHTS), waits for its answer, signals its readiness to the
// shim and exits: the shim's wait for the logger ends there, and the pipes' read ends stay open
// in the shared logger alone. The hand-off starts the shared logger when none answers; it exits
// once it has written no container's output for daemonIdle. A hand-off that cannot reach one
// writes the container's output itself, as the logger of its container alone.
const (
	// argShared names the state directory of the shared logger (its socket's key and the
	// directory of its lock and error log).
	argShared = "--podlife-log-shared"
	// argDaemon makes the process the shared logger of the directory that follows it.
	argDaemon = "--podlife-log-daemon"
	// argProbe makes the logger say that it knows argShared (an older one fails on it).
	argProbe = "--podlife-log-probe"
	// probeAnswer is the answer to argProbe.
	probeAnswer = "podlife-log-shared\n"
	// daemonIdle is how long the shared logger waits, writing no container's output, before
	// it exits.
	daemonIdle = 2 * time.Second
	// handOffTimeout bounds the hand-off, the shared logger's start included.
	handOffTimeout = 10 * time.Second
	// dirCheck is how often the shared logger checks that a container's log directory still
	// exists: a removed pod's output is given up even if a process outside the container
	// still holds its pipe.
	dirCheck = 10 * time.Second
)

// SharedArgs returns the log URI arguments (cio.BinaryIO's args) that make the logger hand the
// container's output to the shared logger of stateDir, which writes path with limits.
func SharedArgs(path string, limits crilog.Limits, stateDir string) map[string]string {
	a := Args(path, limits)
	a[argShared] = stateDir
	return a
}

// SupportsShared reports whether the logger program at path knows SharedArgs: it runs it with
// the probe argument, which a logger older than the shared logger refuses (and the shim would
// then start it, fail, and leave the container's output without a reader: an empty log).
func SupportsShared(ctx context.Context, path string) bool {
	ctx, cancel := context.WithTimeout(ctx, handOffTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, argProbe).Output()
	return err == nil && string(out) == probeAnswer
}

// ShimsSignalByPidfd reports whether the shims of containerd version v (as its Version API
// says: "2.4.2", "v1.6.20") signal a logger through a pidfd: those of containerd 2.x (built
// with Go 1.23 or later). A 1.x shim sends the logger its SIGTERM by PID when the task is
// deleted; a logger that handed its pipes over and exited long before could by then have its
// PID reused by another process, so with those shims each container keeps its own logger.
func ShimsSignalByPidfd(v string) bool {
	major, _, ok := strings.Cut(strings.TrimPrefix(v, "v"), ".")
	n, err := strconv.Atoi(major)
	return ok && err == nil && n >= 2
}

// socketName is the abstract unix socket of the shared logger of dir: abstract, so that no
// path length limit applies and no file outlives the process; only processes of the same user
// are served (SO_PEERCRED).
func socketName(dir string) string {
	d := sha256.Sum256([]byte(filepath.Clean(dir)))
	return fmt.Sprintf("@podlife-logger/%x", d[:16])
}

// DaemonErrorLog is the file in dir (a state directory) where the shared logger writes its
// errors.
func DaemonErrorLog(dir string) string { return filepath.Join(dir, "logger.err") }

// handOffRequest is the message of a hand-off: the container's log and limits; the pipes'
// read ends (stdout, stderr) ride with it.
type handOffRequest struct {
	Path     string `json:"path"`
	MaxSize  int64  `json:"maxSize"`
	MaxFiles int    `json:"maxFiles"`
}
