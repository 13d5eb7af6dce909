package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/containerd/containerd/v2/client"
)

// MinSupportedMajor is the oldest containerd major version podlife supports: 2. containerd 1.6
// and 1.7 still serve podlife's client (the 1.x API) but are past their end of life (2025-07-23
// and 2026-03-10, containerd's RELEASES.md); docs/hosts.md, "containerd versions".
const MinSupportedMajor = 2

// InstallAdvice is what to do about a containerd older than [MinSupportedMajor], as
// [UnsupportedVersionError] says it.
const InstallAdvice = "install containerd 2.x (the upstream release archive into /usr/local, or " +
	"`GOBIN=/usr/local/bin go install -tags=no_btrfs github.com/containerd/containerd/v2/cmd/containerd@v2.4.2 " +
	"github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2@v2.4.2`); a distribution's 1.x " +
	"service (Debian 12's containerd 1.6.20) answering at the system socket is used first: " +
	"`systemctl disable --now containerd` where podlife should start its own"

// UnsupportedVersionError is a containerd version older than [MinSupportedMajor].
type UnsupportedVersionError struct {
	// Version is the version containerd reports, such as "1.6.20~ds1".
	Version string
	// Where names the daemon: its socket, or the binary about to be started.
	Where string
}

func (e *UnsupportedVersionError) Error() string {
	return fmt.Sprintf("daemon: containerd %s at %s is older than %d.0 and past its end of life: %s",
		e.Version, e.Where, MinSupportedMajor, InstallAdvice)
}

// CheckVersion returns an *[UnsupportedVersionError] if version (as containerd reports it:
// "v2.4.2", "1.6.20~ds1", "2.1.0-rc.1") is older than [MinSupportedMajor]. A version it cannot
// read (empty, a development build without a number) passes: only a known old one is refused.
// where names the daemon in the error.
func CheckVersion(version, where string) error {
	major, ok := majorOf(version)
	if !ok || major >= MinSupportedMajor {
		return nil
	}
	return &UnsupportedVersionError{Version: version, Where: where}
}

// majorOf returns the major number of a containerd version string.
func majorOf(version string) (int, bool) {
	v := strings.TrimPrefix(strings.TrimSpace(version), "v")
	end := strings.IndexFunc(v, func(r rune) bool { return r < '0' || r > '9' })
	if end == 0 || (end > 0 && v[end] != '.') {
		return 0, false
	}
	if end < 0 {
		end = len(v)
	}
	n, err := strconv.Atoi(v[:end])
	return n, err == nil
}

// VersionAt returns the version the containerd serving at address reports (within 5 s, or
// ctx's deadline if sooner).
func VersionAt(ctx context.Context, address string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := client.New(address, client.WithTimeout(5*time.Second))
	if err != nil {
		return "", fmt.Errorf("daemon: connect %s: %w", address, err)
	}
	defer c.Close()
	v, err := c.Version(ctx)
	if err != nil {
		return "", fmt.Errorf("daemon: version of %s: %w", address, err)
	}
	return v.Version, nil
}

// WarnUnsupported logs a warning on log, with what to install, if the containerd serving at
// address is older than [MinSupportedMajor], and returns the *[UnsupportedVersionError] it
// logged (nil otherwise, and when the version cannot be read: a daemon that does not answer is
// its caller's error, not this one's). Programs call it once, for the address they connect to.
func WarnUnsupported(ctx context.Context, log *slog.Logger, address string) error {
	v, err := VersionAt(ctx, address)
	if err != nil {
		return nil
	}
	return warnIfOld(log, v, address)
}

// warnIfOld logs and returns CheckVersion's error for version, if any.
func warnIfOld(log *slog.Logger, version, where string) error {
	err := CheckVersion(version, where)
	if err != nil && log != nil {
		log.Warn("containerd is older than 2.0 and past its end of life; podlife supports 2.x",
			"version", version, "at", where, "install", InstallAdvice)
	}
	return err
}
