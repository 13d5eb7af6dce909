package daemon_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/daemon"
)

func TestCheckVersion(t *testing.T) {
	for _, c := range []struct {
		version string
		old     bool
	}{
		{"v2.4.2", false},
		{"2.0.0", false},
		{"v2.1.0-rc.1", false},
		{"v10.0.0", false},
		{"1.6.20~ds1", true},
		{"v1.7.24", true},
		{"1", true},
		{"", false},
		{"dev", false},
		{"v2x", false},
	} {
		err := daemon.CheckVersion(c.version, "/run/x.sock")
		var uv *daemon.UnsupportedVersionError
		if got := errors.As(err, &uv); got != c.old {
			t.Errorf("daemon.CheckVersion(%q) = %v, want old %v", c.version, err, c.old)
			continue
		}
		if c.old && (uv.Version != c.version || !strings.Contains(err.Error(), "install containerd 2.x")) {
			t.Errorf("daemon.CheckVersion(%q) = %v: want the version and what to install", c.version, err)
		}
	}
}

// A private containerd that Ensure starts from a 1.x binary (Debian 12's /usr/bin/containerd)
// is warned about once, with what to install; one of 2.x is not.
func TestEnsureWarnsAboutOldContainerd(t *testing.T) {
	for name, bin := range containerds(t) {
		wantWarn := name != "v2"
		t.Run(name, func(t *testing.T) {
			dir := tempDir(t)
			var buf bytes.Buffer
			log := slog.New(slog.NewTextHandler(&buf, nil))
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			info, err := daemon.Ensure(ctx, daemon.Config{Binary: bin, Dir: dir, Logger: log})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := daemon.Shutdown(context.Background(), dir, nil); err != nil && !errors.Is(err, daemon.ErrNotRunning) {
					t.Errorf("shutdown: %v", err)
				}
			})
			v, err := daemon.VersionAt(ctx, info.Address)
			if err != nil {
				t.Fatal(err)
			}
			warned := strings.Count(buf.String(), "older than 2.0")
			if wantWarn && (warned != 1 || !strings.Contains(buf.String(), "install containerd 2.x")) {
				t.Errorf("containerd %s started: %d warnings, want 1 with the advice; log:\n%s", v, warned, buf.String())
			}
			if !wantWarn && warned != 0 {
				t.Errorf("containerd %s started: warned; log:\n%s", v, buf.String())
			}
			// Found running, not started: no second warning.
			buf.Reset()
			if _, err := daemon.Ensure(ctx, daemon.Config{Binary: bin, Dir: dir, Logger: log}); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(buf.String(), "older than 2.0") {
				t.Errorf("warned again for a daemon Ensure found running:\n%s", buf.String())
			}
			if err := daemon.WarnUnsupported(ctx, nil, info.Address); (err != nil) != wantWarn {
				t.Errorf("daemon.WarnUnsupported(%s) = %v, want an error %v", v, err, wantWarn)
			}
		})
	}
}
