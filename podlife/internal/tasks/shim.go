package tasks

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// ShimSocketPath is where containerd's runc shim manager puts the socket of a shim group (or
// of a task's own shim) of the containerd at address, in namespace:
// /run/containerd/s/<sha256 of "<address>/<namespace>/<group>"> (containerd 1.6 to 2.x).
func ShimSocketPath(address, namespace, group string) string {
	d := sha256.Sum256([]byte(filepath.Join(address, namespace, group)))
	return fmt.Sprintf("/run/containerd/s/%x", d)
}

// RemoveStaleShimSocket removes sock, once the shim that served it is gone (see
// Runtime.RemoveStaleShim).
func RemoveStaleShimSocket(sock string, log *slog.Logger) {
	// A shim whose last task was just deleted may take a moment to exit.
	for deadline := time.Now().Add(time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Lstat(sock); err != nil {
			return // the usual case: the shim removed it
		}
		if !canConnect(sock) {
			break
		}
		if time.Now().After(deadline) {
			log.Debug("shim socket still served after the pod's tasks were deleted", "socket", sock)
			return
		}
	}
	if err := os.Remove(sock); err != nil && !errors.Is(err, os.ErrNotExist) {
		log.Warn("stale shim socket", "socket", sock, "err", err)
		return
	}
	log.Debug("removed a stale shim socket", "socket", sock)
}

// canConnect reports whether something listens on the unix socket sock. A unix connect is
// answered at once (refused, or no such socket, when nothing listens), so the generous timeout
// costs nothing then; it only keeps a loaded host's slow scheduling from passing for a dead
// daemon. A listener whose backlog is full (EAGAIN) listens all the same.
func canConnect(sock string) bool {
	c, err := net.DialTimeout("unix", sock, time.Second)
	if err != nil {
		return errors.Is(err, syscall.EAGAIN)
	}
	_ = c.Close()
	return true
}
