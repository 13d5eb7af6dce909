package daemon_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	tasks "github.com/containerd/containerd/api/services/tasks/v1"
	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/podlife/daemon"
)

// containerds returns the containerd binaries to test with, by name; it
// skips the test when not root or when none is installed.
func containerds(t *testing.T) map[string]string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("containerd needs root")
	}
	built, err := filepath.Abs(filepath.Join("..", "..", ".cache", "bin", "containerd"))
	if err != nil {
		t.Fatal(err)
	}
	if env := os.Getenv("PODLIFE_TEST_CONTAINERD"); env != "" && env != "/usr/bin/containerd" {
		built = env
	}
	bins := map[string]string{}
	for name, path := range map[string]string{"v2": built, "v1.6": "/usr/bin/containerd"} {
		if _, err := exec.LookPath(path); err == nil {
			bins[name] = path
		}
	}
	if len(bins) == 0 {
		t.Skip("no containerd binary found")
	}
	return bins
}

// tempDir returns a short directory (unix socket paths are limited),
// removed when the test ends.
func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "plt-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Error(err)
		}
	})
	return dir
}

func TestStartStop(t *testing.T) {
	for name, bin := range containerds(t) {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			dir := tempDir(t)
			logFile := filepath.Join(dir, "containerd.log")

			begin := time.Now()
			d, err := daemon.Start(ctx, daemon.Config{Binary: bin, Dir: dir, LogFile: logFile})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: serving after %v", bin, time.Since(begin))
			t.Cleanup(func() { _ = d.Stop(context.Background()) })

			if got, want := d.Address(), filepath.Join(dir, "containerd.sock"); got != want {
				t.Errorf("Address() = %q, want %q", got, want)
			}
			v, err := d.Version(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("version %s", v)
			c, err := client.New(d.Address())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			// The services podlife uses must be there (1.6 drops the tasks
			// service if the legacy runtime plugin is disabled).
			nsCtx := namespaces.WithNamespace(ctx, "plt-test")
			if _, err := c.Containers(nsCtx); err != nil {
				t.Errorf("containers service: %v", err)
			}
			if _, err := c.TaskService().List(nsCtx, &tasks.ListTasksRequest{}); err != nil {
				t.Errorf("tasks service: %v", err)
			}
			if _, err := c.ListImages(nsCtx); err != nil {
				t.Errorf("images service: %v", err)
			}
			if _, err := c.LeasesService().List(nsCtx); err != nil {
				t.Errorf("leases service: %v", err)
			}
			if err := d.Err(); err != nil {
				t.Errorf("Err() while running = %v", err)
			}
			if _, err := daemon.Start(ctx, daemon.Config{Binary: bin, Dir: dir}); err == nil {
				t.Error("second Start on the same Dir succeeded")
			}

			begin = time.Now()
			if err := d.Stop(ctx); err != nil {
				t.Fatal(err)
			}
			t.Logf("stopped after %v", time.Since(begin))
			if err := d.Stop(ctx); err != nil {
				t.Errorf("second Stop = %v", err)
			}
			select {
			case <-d.Done():
			default:
				t.Error("Done not closed after Stop")
			}
			if err := d.Err(); err != nil {
				t.Errorf("Err() after Stop = %v", err)
			}
			if _, err := os.Stat(d.Address()); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("socket left after Stop: %v", err)
			}
			out, err := os.ReadFile(logFile)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), "serving") {
				t.Errorf("log file lacks the daemon's output:\n%s", out)
			}
		})
	}
}

func TestStartExitsEarly(t *testing.T) {
	dir := tempDir(t)
	_, err := daemon.Start(t.Context(), daemon.Config{Binary: "false", Dir: dir})
	if !errors.Is(err, daemon.ErrExited) {
		t.Fatalf("Start with a failing binary = %v, want ErrExited", err)
	}
}

func TestStartTimeout(t *testing.T) {
	dir := tempDir(t)
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	// sleep ignores --config and never opens the socket.
	sleep := filepath.Join(dir, "sleep")
	script := "#!/bin/sh\necho starting up >&2\nexec sleep 60\n"
	if err := os.WriteFile(sleep, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := daemon.Start(ctx, daemon.Config{Binary: sleep, Dir: dir})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Start = %v, want a deadline error", err)
	}
	if !strings.Contains(err.Error(), "starting up") {
		t.Errorf("error does not quote the output: %v", err)
	}
}

func TestSocketPathTooLong(t *testing.T) {
	dir := filepath.Join(os.TempDir(), strings.Repeat("d", 100))
	_, err := daemon.Start(t.Context(), daemon.Config{Binary: "true", Dir: dir})
	if !errors.Is(err, daemon.ErrSocketPathTooLong) {
		t.Fatalf("Start = %v, want ErrSocketPathTooLong", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Start created %s despite the error", dir)
	}
}

func TestDirRequired(t *testing.T) {
	if _, err := daemon.Start(t.Context(), daemon.Config{Binary: "true"}); err == nil {
		t.Fatal("Start without Dir succeeded")
	}
}

func TestUnexpectedExit(t *testing.T) {
	for name, bin := range containerds(t) {
		t.Run(name, func(t *testing.T) {
			d, err := daemon.Start(t.Context(), daemon.Config{Binary: bin, Dir: tempDir(t)})
			if err != nil {
				t.Fatal(err)
			}
			if err := syscall.Kill(d.PID(), syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			select {
			case <-d.Done():
			case <-time.After(10 * time.Second):
				t.Fatal("Done not closed after the daemon was killed")
			}
			if err := d.Err(); !errors.Is(err, daemon.ErrExited) {
				t.Errorf("Err() = %v, want ErrExited", err)
			}
			if err := d.Stop(t.Context()); !errors.Is(err, daemon.ErrExited) {
				t.Errorf("Stop() = %v, want ErrExited", err)
			}
		})
	}
}
