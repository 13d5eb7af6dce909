package podlife_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// With no containerd at the system socket, New starts a private one under the state dir and
// Close stops it.
func TestEmbeddedContainerd(t *testing.T) {
	if env.skip != "" {
		t.Skip(env.skip)
	}
	if _, err := os.Stat(podlife.DefaultAddress); err == nil {
		t.Skip("a containerd socket exists at " + podlife.DefaultAddress + ": not touching a daemon this test did not start")
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
	rt, err := podlife.New(ctx, podlife.Config{StateDir: dir, Embedded: podlife.EmbeddedConfig{Binary: bin},
		Bridge: cni.BridgeConfig{Name: "plt-" + env.runID + "-e", Bridge: "plt" + env.runID + "e"}})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	sock := filepath.Join(dir, "containerd", "containerd.sock")
	if ok, err := rt.Client().IsServing(ctx); !ok || err != nil {
		t.Fatalf("private containerd not serving: %v", err)
	}
	if _, err := os.Stat(sock); err != nil {
		t.Errorf("no private socket at %s: %v", sock, err)
	}
	if b, ok := rt.Network().(*cni.Bridge); ok {
		defer b.Destroy(context.WithoutCancel(ctx))
	}
	if err := rt.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := rt.Close(); !errors.Is(err, podlife.ErrClosed) {
		t.Errorf("second Close: %v, want ErrClosed", err)
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("the private containerd's socket is still there after Close: %v", err)
	}
}
