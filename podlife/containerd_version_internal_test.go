package podlife

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// TestIgnoreSystemValidate: Embedded.IgnoreSystem excludes an Address and Embedded.Disable.
func TestIgnoreSystemValidate(t *testing.T) {
	ok := Config{Embedded: EmbeddedConfig{IgnoreSystem: true}}
	if err := ok.Validate(); err != nil {
		t.Errorf("IgnoreSystem alone: %v", err)
	}
	for _, c := range []Config{
		{Address: "/run/x.sock", Embedded: EmbeddedConfig{IgnoreSystem: true}},
		{Embedded: EmbeddedConfig{IgnoreSystem: true, Disable: true}},
	} {
		err := c.Validate()
		if !errors.Is(err, ErrInvalidSpec) || !strings.Contains(fmtErr(err), "config.embedded.ignoreSystem") {
			t.Errorf("%+v: Validate = %v, want ErrInvalidSpec naming config.embedded.ignoreSystem", c, err)
		}
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestNewWarnsAboutOldContainerd: a Runtime given the address of a containerd 1.x (Debian 12's
// /usr/bin/containerd, started by the test with its own root, state and socket) logs one
// warning with what to install; one given a containerd 2.x logs none.
func TestNewWarnsAboutOldContainerd(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	bins := map[string]string{"v1.6": "/usr/bin/containerd"}
	if v2, err := podlifetest.ContainerdBinary("../.cache/bin/containerd"); err == nil {
		bins["v2"] = v2
	}
	for name, bin := range bins {
		t.Run(name, func(t *testing.T) {
			if _, err := os.Stat(bin); err != nil {
				t.Skip(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			dir, err := os.MkdirTemp("", "plt-ov")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			ctrdDir := filepath.Join(dir, "ctrd")
			info, err := daemon.Ensure(ctx, daemon.Config{Binary: bin, Dir: ctrdDir})
			if err != nil {
				t.Fatal(err)
			}
			defer daemon.Shutdown(context.Background(), ctrdDir, nil) //nolint:errcheck // a failed test still stops it
			version, err := daemon.VersionAt(ctx, info.Address)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
			r, err := New(ctx, Config{Address: info.Address, StateDir: filepath.Join(dir, "state"), Network: noNetwork{}, Logger: log})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			r.Close()
			warnings := strings.Count(buf.String(), "older than 2.0")
			old := daemon.CheckVersion(version, info.Address) != nil
			if old && (warnings != 1 || !strings.Contains(buf.String(), "version="+version) || !strings.Contains(buf.String(), "install containerd 2.x")) {
				t.Errorf("containerd %s: %d warnings, want one with the version and the advice; log:\n%s", version, warnings, buf.String())
			}
			if !old && warnings != 0 {
				t.Errorf("containerd %s: warned; log:\n%s", version, buf.String())
			}
			t.Logf("containerd %s: %d warning(s)", version, warnings)
		})
	}
}
