package daemon

import (
	"context"
	"log/slog"
	"time"
)

// versionTimeout bounds asking containerd its version after a connect.
const versionTimeout = 5 * time.Second

// WarnIfOld logs one warning on log, with what to install ([InstallAdvice]), if the
// containerd at addr reports a version older than [MinSupportedMajor] (a distribution's
// 1.x service at the system socket, say), and returns whether it did. version asks containerd
// (podlife's client). A version that cannot be read is logged at debug level only: it is
// not a reason to refuse a containerd that serves. The private containerd is not checked here:
// [Ensure] warns about a 1.x binary as it starts it.
func WarnIfOld(ctx context.Context, log *slog.Logger, version func(context.Context) (string, error), addr string) bool {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	v, err := version(ctx)
	if err != nil {
		log.Debug("containerd version unknown", "at", addr, "err", err)
		return false
	}
	if CheckVersion(v, addr) == nil {
		return false
	}
	log.Warn("containerd is older than 2.0 and past its end of life; podlife supports 2.x",
		"version", v, "at", addr, "install", InstallAdvice)
	return true
}
