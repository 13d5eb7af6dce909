package podlife_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// Two programs on one host with their own state dirs and default network flags (an edge agent
// next to podlife-node): the same bridge and subnet, but host-local's leases are per state dir,
// so both would give their first pod the same IP and mix its traffic. The second is refused,
// with an error naming the bridge and the state dir that owns it, and leaves nothing behind;
// its startup garbage collection leaves the owner's lease and pod alone; once the owner's last
// pod is removed it may use the bridge.
func TestTwoStateDirsOnOneBridge(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	spec := func(name string) podlife.PodSpec {
		return podlife.PodSpec{Name: name, TerminationGracePeriod: ptr(time.Duration(0)),
			Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}}}}
	}
	first, err := h.rt.Run(ctx, spec("first"))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	firstIP := first.Sandbox().IP()
	firstLease := filepath.Join(h.bridge.StateDir, "ipam", h.bridge.Name, firstIP.String())

	// The other program: its own state dir, the same containerd namespace (the default is the
	// same too), and the bridge podlife makes by default, with the same bridge and subnet.
	stateDir := filepath.Join(h.stateDir + "-other")
	t.Cleanup(func() { _ = os.RemoveAll(stateDir) })
	logs := &lockedWriter{}
	cfg := h.cfg
	cfg.StateDir = stateDir
	cfg.Network = nil
	cfg.Bridge = h.bridge
	cfg.Bridge.StateDir = ""
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	other, err := podlife.New(ctx, cfg) // runs the startup garbage collection
	if err != nil {
		t.Fatalf("podlife.New (other state dir): %v", err)
	}
	defer func() {
		if t.Failed() {
			t.Logf("other runtime's log:\n%s", logs.String())
		}
	}()
	defer other.Close()
	otherCNI := filepath.Join(stateDir, "cni")
	if _, err := os.Stat(firstLease); err != nil {
		t.Errorf("the other state dir's startup GC took the first pod's lease: %v", err)
	}

	second, err := other.Run(ctx, spec("second"))
	if err == nil {
		ip := second.Sandbox().IP()
		_ = second.Remove(ctx)
		if ip == firstIP {
			t.Fatalf("pods of two state dirs on bridge %s both got %s", h.bridge.Bridge, ip)
		}
		t.Fatalf("Run on a bridge another state dir has pods on succeeded (IP %s, first pod %s)", ip, firstIP)
	}
	var inUse *cni.BridgeInUseError
	var se *podlife.StartError
	if !errors.As(err, &inUse) || !errors.As(err, &se) || se.Step != podlife.StepNetwork {
		t.Fatalf("Run error %v: want a *StartError at step network wrapping a *cni.BridgeInUseError", err)
	}
	if inUse.Bridge != h.bridge.Bridge || inUse.StateDir != h.bridge.StateDir {
		t.Errorf("BridgeInUseError %+v, want bridge %s owned by %s", inUse, h.bridge.Bridge, h.bridge.StateDir)
	}
	for _, want := range []string{`"` + h.bridge.Bridge + `"`, h.bridge.StateDir} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	// Nothing of the refused pod is left: no lease, pod directory, mount or veth.
	leaks, err := podlifetest.HostLeaks(stateDir, "", "", filepath.Join(otherCNI, "ipam"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range leaks {
		t.Errorf("leak of the refused pod: %s", l)
	}
	if entries, _ := os.ReadDir(filepath.Join(stateDir, "pods")); len(entries) > 0 {
		t.Errorf("refused pod left %d pod directories", len(entries))
	}
	if got := len(other.Pods()); got != 0 {
		t.Errorf("other runtime has %d pods", got)
	}

	// The first pod kept its address and lease, and is reachable.
	if got := first.Sandbox().IP(); got != firstIP {
		t.Errorf("first pod's IP %s, was %s", got, firstIP)
	}
	if _, err := os.Stat(firstLease); err != nil {
		t.Errorf("first pod's lease: %v", err)
	}

	// Once the owner has no pods on the bridge, the other state dir may use it.
	if err := first.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	second, err = other.Run(ctx, spec("second"))
	if err != nil {
		t.Fatalf("Run after the owner's last pod left: %v", err)
	}
	if ip := second.Sandbox().IP(); !h.bridge.Subnet.Contains(ip) {
		t.Errorf("second pod's IP %s not in %s", ip, h.bridge.Subnet)
	}
	if err := second.Remove(ctx); err != nil {
		t.Errorf("Remove: %v", err)
	}
	leaks, err = podlifetest.HostLeaks(stateDir, "", "", filepath.Join(otherCNI, "ipam"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range leaks {
		t.Errorf("leak after removal: %s", l)
	}
}
