package daemon_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/podlife/podlife/podlife/daemon"
)

// TestWarnIfOld: a containerd older than 2.0 (as a fake reports it) gives one warning
// with the version, the address and what to install; 2.x, and a version that cannot be read,
// give none.
func TestWarnIfOld(t *testing.T) {
	for _, tc := range []struct {
		version string
		err     error
		warn    bool
	}{
		{version: "1.6.20~ds1", warn: true},
		{version: "v1.7.27", warn: true},
		{version: "v2.4.2"},
		{version: "2.1.0-rc.1"},
		{version: "v3.0.0"},
		{version: ""},
		{err: errors.New("unavailable")},
	} {
		var buf bytes.Buffer
		log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
		version := func(context.Context) (string, error) { return tc.version, tc.err }
		got := daemon.WarnIfOld(t.Context(), log, version, "/run/containerd/containerd.sock")
		out := buf.String()
		if got != tc.warn {
			t.Errorf("version %q (err %v): warned %v, want %v; log %q", tc.version, tc.err, got, tc.warn, out)
		}
		if !tc.warn {
			if out != "" {
				t.Errorf("version %q (err %v): logged %q, want nothing", tc.version, tc.err, out)
			}
			continue
		}
		if n := strings.Count(out, "\n"); n != 1 || !strings.Contains(out, "level=WARN") {
			t.Errorf("version %q: log %q, want one warning", tc.version, out)
		}
		for _, want := range []string{tc.version, "at=/run/containerd/containerd.sock", daemon.InstallAdvice[:40]} {
			if !strings.Contains(out, want) {
				t.Errorf("version %q: warning %q lacks %q", tc.version, out, want)
			}
		}
	}
}
