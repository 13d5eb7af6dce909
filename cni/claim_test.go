//go:build linux

package cni

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// claimChildEnv carries, to TestBridgeClaimChild run in a child process, the
// BridgeConfig (JSON) to attach a pod with.
const claimChildEnv = "PODLIFE_CNI_CLAIM_CHILD"

// The claim works across processes: a second program (here the test binary
// run again) with its own state dir is refused the bridge this process's
// network has a pod on.
func TestTwoProcessesOnOneBridge(t *testing.T) {
	owner := newTestBridge(t, false)
	p := attach(t, owner)
	cfg := owner.Config()
	cfg.StateDir = t.TempDir()
	data, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestBridgeClaimChild$", "-test.v")
	cmd.Env = append(os.Environ(), claimChildEnv+"="+string(data))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	want := fmt.Sprintf("refused: bridge %s owned by %s", cfg.Bridge, owner.Config().StateDir)
	if !strings.Contains(string(out), want) {
		t.Fatalf("child output lacks %q (first pod has %s):\n%s", want, p.res.IP, out)
	}
	if n := leaseCountIn(t, cfg); n != 0 {
		t.Errorf("the refused process left %d leases", n)
	}
}

// leaseCountIn is leaseCount for a config.
func leaseCountIn(t testing.TB, cfg BridgeConfig) int {
	t.Helper()
	return leaseCount(t, &Bridge{cfg: cfg})
}

// TestBridgeClaimChild is the child process of TestTwoProcessesOnOneBridge:
// it attaches a pod with the config it is given and prints the outcome.
func TestBridgeClaimChild(t *testing.T) {
	data := os.Getenv(claimChildEnv)
	if data == "" {
		t.Skip("helper process of TestTwoProcessesOnOneBridge")
	}
	var cfg BridgeConfig
	if err := json.Unmarshal([]byte(data), &cfg); err != nil {
		t.Fatal(err)
	}
	b, err := NewBridge(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	netns := newNetNS(t)
	id := "pod-" + randomSuffix(t, 8)
	res, err := b.Setup(ctx, id, netns)
	var inUse *BridgeInUseError
	switch {
	case err == nil:
		t.Logf("attached with IP %s", res.IP)
		if err := b.Remove(ctx, id, netns); err != nil {
			t.Error(err)
		}
	case errors.As(err, &inUse):
		t.Logf("refused: bridge %s owned by %s", inUse.Bridge, inUse.StateDir)
	default:
		t.Fatal(err)
	}
}

// writeClaim records owner as the owner of bridge, as another program would.
func writeClaim(t testing.TB, bridge string, owner bridgeOwner) {
	t.Helper()
	data, err := json.Marshal(owner)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(filepath.Join(BridgeClaimDir, bridge+".json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A pod attached before claims existed (today's main records none) is
// removed cleanly, its lease being where it always was, even while another
// state dir owns the bridge; an owner counts while it holds a lease, and
// one whose state dir is gone is taken over.
func TestBridgeClaimOfOldAndGoneOwners(t *testing.T) {
	b := newTestBridge(t, false)
	cfg := b.Config()
	ctx := context.Background()
	p := attach(t, b)
	if err := os.Remove(filepath.Join(BridgeClaimDir, cfg.Bridge+".json")); err != nil {
		t.Fatal(err) // now as main left it
	}

	// Another state dir owns the bridge and has a pod (a lease) on it.
	foreign := bridgeOwner{StateDir: t.TempDir(), Network: cfg.Name}
	leases := filepath.Join(foreign.StateDir, "ipam", foreign.Network)
	if err := os.MkdirAll(leases, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(leases, "10.0.0.9"), []byte("podlife-x\neth0"), 0o600); err != nil {
		t.Fatal(err)
	}
	writeClaim(t, cfg.Bridge, foreign)

	if err := b.Remove(ctx, p.id, p.netns); err != nil {
		t.Fatalf("Remove of a pod attached without a claim: %v", err)
	}
	if n := leaseCount(t, b); n != 0 {
		t.Errorf("%d leases left after Remove", n)
	}
	if rules := natRulesOf(t, cfg.Name, p.id); len(rules) > 0 {
		t.Errorf("nat rules left: %q", rules)
	}
	q := &pod{id: "pod-" + randomSuffix(t, 8), netns: newNetNS(t)}
	var inUse *BridgeInUseError
	if _, err := b.Setup(ctx, q.id, q.netns); !errors.As(err, &inUse) || inUse.StateDir != foreign.StateDir {
		t.Fatalf("Setup while another state dir has a lease on the bridge = %v, want a *BridgeInUseError naming %s", err, foreign.StateDir)
	}
	if err := b.Destroy(ctx); err != nil {
		t.Fatal(err)
	}
	if !linkExists(t, cfg.Bridge) {
		t.Error("Destroy deleted a bridge another state dir owns")
	}

	// The owner's state dir is deleted: its claim is stale.
	if err := os.RemoveAll(foreign.StateDir); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Setup(ctx, q.id, q.netns); err != nil {
		t.Fatalf("Setup after the owner's state dir was deleted: %v", err)
	}
	if err := b.Remove(ctx, q.id, q.netns); err != nil {
		t.Error(err)
	}
	data, _ := os.ReadFile(filepath.Join(BridgeClaimDir, cfg.Bridge+".json"))
	var got bridgeOwner
	if json.Unmarshal(data, &got) != nil || got != (bridgeOwner{StateDir: cfg.StateDir, Network: cfg.Name}) {
		t.Errorf("claim after the takeover = %s", data)
	}
}
