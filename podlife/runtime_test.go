package podlife_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/internal/cnipath"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// With no containerd at the system socket, New starts a private one under the state dir. It
// belongs to the state dir: Close leaves it running, the next New uses it again, and
// daemon.StopPrivate stops it, but only once no pod is left.
func TestEmbeddedContainerd(t *testing.T) {
	if env.skip != "" {
		t.Skip(env.skip)
	}
	bin, err := exec.LookPath("containerd")
	if err != nil {
		t.Skip("no containerd in PATH")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "plt-e")
	if err != nil {
		t.Fatal(err)
	}
	defer podlifetest.RemoveAll(dir)
	ctrdDir := filepath.Join(dir, "containerd")
	defer daemon.Shutdown(context.Background(), ctrdDir, nil) //nolint:errcheck // a failed test still stops it
	nw, err := cni.NewBridge(cni.BridgeConfig{Name: "plt-" + env.runID + "-e", Bridge: "plt" + env.runID + "e", StateDir: filepath.Join(dir, "cni"),
		PluginDirs: cnipath.Dirs(filepath.Join("..", ".cache", "cni", "bin"))})
	if err != nil {
		t.Fatal(err)
	}
	defer nw.Destroy(context.WithoutCancel(ctx))
	// Where a system containerd serves, the test moves the system socket New tries first where
	// nothing answers: the private containerd is used, the system one never touched.
	cfg := podlife.WithoutSystemContainerd(podlife.Config{StateDir: dir, Embedded: podlife.EmbeddedConfig{Binary: bin}, Network: nw})
	rt, err := podlife.New(ctx, cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	sock := filepath.Join(ctrdDir, "containerd.sock")
	if _, err := rt.Images(ctx); err != nil {
		t.Fatalf("private containerd not serving: %v", err)
	}
	if !rt.PrivateDaemon() {
		t.Error("PrivateDaemon() = false with the private containerd in use")
	}
	info, err := daemon.Lookup(ctrdDir)
	if err != nil || info.Address != sock || info.PID == 0 {
		t.Fatalf("Lookup = %+v, %v; want the daemon at %s", info, err, sock)
	}
	if b, err := os.ReadFile(filepath.Join(ctrdDir, "containerd.log")); err != nil || len(b) == 0 {
		t.Errorf("no daemon log in the state dir: %v", err)
	}
	if err := rt.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := rt.Close(); !errors.Is(err, podlife.ErrClosed) {
		t.Errorf("second Close: %v, want ErrClosed", err)
	}
	// Close left it running; a new Runtime uses the same daemon.
	if after, err := daemon.Lookup(ctrdDir); err != nil || after.PID != info.PID {
		t.Fatalf("after Close: Lookup = %+v, %v; want pid %d still serving", after, err, info.PID)
	}
	rt2, err := podlife.New(ctx, cfg)
	if err != nil {
		t.Fatalf("second New: %v", err)
	}
	if after, err := daemon.Lookup(ctrdDir); err != nil || after.PID != info.PID || !rt2.PrivateDaemon() {
		t.Errorf("second New: Lookup = %+v, %v; want the same daemon (pid %d)", after, err, info.PID)
	}
	if err := rt2.Close(); err != nil {
		t.Fatal(err)
	}

	// A pod left in the state dir: refused, naming it.
	podDir := filepath.Join(dir, "pods", "leftover")
	if err := os.MkdirAll(podDir, 0o700); err != nil {
		t.Fatal(err)
	}
	err = daemon.StopPrivate(ctx, dir)
	if !errors.Is(err, daemon.ErrPodsLeft) || !strings.Contains(err.Error(), "leftover") {
		t.Errorf("StopPrivate with a pod left = %v, want ErrPodsLeft naming it", err)
	}
	if _, err := daemon.Lookup(ctrdDir); err != nil {
		t.Errorf("the refused stop stopped it: %v", err)
	}
	if err := os.Remove(podDir); err != nil {
		t.Fatal(err)
	}
	if err := daemon.StopPrivate(ctx, dir); err != nil {
		t.Fatalf("StopPrivate: %v", err)
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the private containerd's socket is still there after StopPrivate: %v", err)
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", info.PID)); err == nil && !strings.Contains(string(b), ") Z ") {
		t.Errorf("containerd %d still runs after StopPrivate", info.PID)
	}
	if err := daemon.StopPrivate(ctx, dir); !errors.Is(err, daemon.ErrNotRunning) {
		t.Errorf("second StopPrivate = %v, want ErrNotRunning", err)
	}
}
