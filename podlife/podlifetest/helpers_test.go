package podlifetest_test

import (
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// requireRoot skips the test unless it runs as root.
func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
}

// requireBinary skips the test unless name is in PATH.
func requireBinary(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("needs %s: %v", name, err)
	}
}

// testLogger returns a logger for the daemons under test: warnings and
// errors to stderr, and with -v their output too.
func testLogger() *slog.Logger {
	level := slog.LevelWarn
	if testing.Verbose() {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

// containerdVersion is a containerd binary to test with.
type containerdVersion struct {
	name, binary string
}

// containerds returns the installed containerd binaries: the 2.x build in
// the module's .cache/bin and Debian's 1.6. It skips the test if there are
// none.
func containerds(t *testing.T) []containerdVersion {
	t.Helper()
	requireRoot(t)
	built, err := filepath.Abs(filepath.Join("..", "..", ".cache", "bin", "containerd"))
	if err != nil {
		t.Fatal(err)
	}
	var vs []containerdVersion
	for _, v := range []containerdVersion{{"v2", built}, {"v1.6", "/usr/bin/containerd"}} {
		if _, err := exec.LookPath(v.binary); err == nil {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		t.Skip("no containerd binary found")
	}
	return vs
}

// startContainerd starts a private containerd for the test and checks on
// cleanup that its directory and mounts are gone.
func startContainerd(t *testing.T, binary string) *podlifetest.Containerd {
	t.Helper()
	c, err := podlifetest.StartContainerd(t.Context(), daemon.Config{Binary: binary, Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
		if _, err := os.Stat(c.Dir()); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left after Close: %v", c.Dir(), err)
		}
		leaks, err := podlifetest.HostLeaks(c.Dir(), "", "", "")
		if err != nil {
			t.Error(err)
		}
		for _, l := range leaks {
			t.Errorf("leak after Close: %s", l)
		}
	})
	return c
}

// assertNoLeaks fails the test for every item in leaks.
func assertNoLeaks(t *testing.T, leaks []string, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if len(leaks) > 0 {
		t.Errorf("leaks:\n\t%s", strings.Join(leaks, "\n\t"))
	}
}
