//go:build linux

package cni

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/internal/cnipath"
)

// newSiblingBridge makes a Bridge with cfg's network name, bridge device and
// subnet but a state dir of its own: what a second program (an edge agent
// next to podlife-node, say) with default flags has. It is destroyed when
// the test ends.
func newSiblingBridge(t testing.TB, cfg BridgeConfig) *Bridge {
	t.Helper()
	cfg.StateDir = t.TempDir()
	cfg.PluginDirs = cnipath.Dirs(filepath.Join("..", ".cache", "cni", "bin"))
	b, err := NewBridge(cfg)
	if err != nil {
		t.Fatalf("NewBridge: %v", err)
	}
	t.Cleanup(func() {
		if err := b.Destroy(context.Background()); err != nil {
			t.Errorf("Destroy (sibling): %v", err)
		}
	})
	return b
}

// leaseCount returns how many addresses host-local leases in b's state dir.
func leaseCount(t testing.TB, b *Bridge) int {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(b.Config().StateDir, "ipam", b.Config().Name))
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if _, err := netip.ParseAddr(e.Name()); err == nil {
			n++
		}
	}
	return n
}

// Two state dirs with the same bridge and subnet (every state dir's
// default): host-local keeps leases per state dir, so both would hand out
// the bridge's first free address and two pods would share an IP. The
// second state dir is refused, with an error naming the bridge and the
// state dir that owns it, and leaves nothing behind; its Destroy leaves the
// owner's bridge and pods alone; once the owner's last pod is gone it takes
// the bridge over.
func TestTwoStateDirsOnOneBridge(t *testing.T) {
	owner := newTestBridge(t, false)
	other := newSiblingBridge(t, owner.Config())
	ctx := context.Background()
	cfg := owner.Config()

	p := attach(t, owner, WithPortMappings(PortMapping{HostPort: randomHostPort(t), ContainerPort: 8080}))
	listenInNetNS(t, p.netns, 8080, p.id)

	q := &pod{id: "pod-" + randomSuffix(t, 8), netns: newNetNS(t)}
	res, err := other.Setup(ctx, q.id, q.netns)
	if err == nil {
		_ = other.Remove(ctx, q.id, q.netns)
		if res.IP == p.res.IP {
			t.Fatalf("pods of two state dirs on bridge %s both got %s", cfg.Bridge, res.IP)
		}
		t.Fatalf("Setup on a bridge another state dir uses succeeded (IP %s)", res.IP)
	}
	var inUse *BridgeInUseError
	if !errors.As(err, &inUse) {
		t.Fatalf("Setup error %v is not a *BridgeInUseError", err)
	}
	if inUse.Bridge != cfg.Bridge || inUse.StateDir != cfg.StateDir || inUse.Network != cfg.Name {
		t.Errorf("BridgeInUseError = %+v, want bridge %s, state dir %s, network %s", inUse, cfg.Bridge, cfg.StateDir, cfg.Name)
	}
	for _, want := range []string{`"` + cfg.Bridge + `"`, cfg.StateDir} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	if n := leaseCount(t, other); n != 0 {
		t.Errorf("refused state dir holds %d leases", n)
	}
	if ports, err := bridgePorts(cfg.Bridge); err != nil || len(ports) != 1 {
		t.Errorf("bridge ports after the refusal = %v (%v), want the owner's pod's only", ports, err)
	}

	// The refused program's cleanup must not take the owner's bridge or pods with it.
	if err := other.Destroy(ctx); err != nil {
		t.Fatalf("Destroy of the refused network: %v", err)
	}
	if !linkExists(t, cfg.Bridge) || !linkExists(t, hostVeth(t, p.res)) {
		t.Fatalf("the refused network's Destroy deleted the owner's bridge or pod veth")
	}
	if got := localnetGuards(t, cfg.Name); len(got) != 1 {
		t.Errorf("owner's localnet guard after the other's Destroy: %q", got)
	}
	expectGreeting(t, netip.AddrPortFrom(p.res.IP, 8080).String(), p.id)

	// Once the owner has no pod on the bridge, the other state dir may take it.
	if err := owner.Remove(ctx, p.id, p.netns); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	res, err = other.Setup(ctx, q.id, q.netns)
	if err != nil {
		t.Fatalf("Setup after the owner's last pod left: %v", err)
	}
	defer func() {
		if err := other.Remove(ctx, q.id, q.netns); err != nil {
			t.Errorf("Remove: %v", err)
		}
	}()
	r := &pod{id: "pod-" + randomSuffix(t, 8), netns: newNetNS(t)}
	if _, err := owner.Setup(ctx, r.id, r.netns); !errors.As(err, &inUse) || inUse.StateDir != other.Config().StateDir {
		_ = owner.Remove(ctx, r.id, r.netns)
		t.Fatalf("the former owner's Setup = %v, want a *BridgeInUseError naming %s", err, other.Config().StateDir)
	}
	if !cfg.Subnet.Contains(res.IP) {
		t.Errorf("IP %s not in %s", res.IP, cfg.Subnet)
	}
}

// Networks of the same name (every state dir's default, "podlife") on two
// bridges each need a localnet guard: the second must not take the first's
// guard, which drops only what comes in through the first bridge, for its
// own, or its pods reach the host's 127.0.0.1 (see
// TestPodCannotReachHostLocalhost for the attack).
func TestLocalnetGuardPerBridge(t *testing.T) {
	first := newTestBridge(t, false)
	cfg := first.Config()
	cfg.Bridge += "b"
	a := cfg.Subnet.Addr().As4()
	a[2] ^= 0x80
	cfg.Subnet = netip.PrefixFrom(netip.AddrFrom4(a), cfg.Subnet.Bits())
	t.Cleanup(func() { // after second's Destroy
		if err := os.Remove(filepath.Join(BridgeClaimDir, cfg.Bridge+".lock")); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Error(err)
		}
	})
	second := newSiblingBridge(t, cfg)

	attach(t, first, WithPortMappings(PortMapping{HostPort: randomHostPort(t), ContainerPort: 8080}))
	hostPort := randomHostPort(t)
	p := attach(t, second, WithPortMappings(PortMapping{HostPort: hostPort, ContainerPort: 8080}))
	listenInNetNS(t, p.netns, 8080, p.id)
	secret := listenOnHostLoopback(t, "host-only")

	guards := localnetGuards(t, cfg.Name)
	for _, br := range []string{first.Config().Bridge, cfg.Bridge} {
		n := 0
		for _, g := range guards {
			if strings.Contains(g, "-i "+br+" ") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d guards for bridge %s, want 1; guards of network %s: %q", n, br, cfg.Name, guards)
		}
	}
	routeLocalhostViaGateway(t, p)
	if greeting, err := dialInNetNS(p.netns, secret, time.Second); err == nil {
		t.Fatalf("a pod on the second bridge reached the host's %s (greeting %q)", secret, greeting)
	}
	expectGreeting(t, fmt.Sprintf("127.0.0.1:%d", hostPort), p.id)
}

// Two state dirs attaching their first pods to a free bridge at the same
// time: the claim and the ADD happen under one host-wide lock, so exactly
// one wins and the other is refused.
func TestTwoStateDirsRaceForOneBridge(t *testing.T) {
	first := newTestBridge(t, false)
	second := newSiblingBridge(t, first.Config())
	ctx := context.Background()
	bridges := []*Bridge{first, second}
	pods := make([]*pod, 2)
	errs := make([]error, 2)
	start, done := make(chan struct{}), make(chan int)
	for i := range bridges {
		pods[i] = &pod{id: "pod-" + randomSuffix(t, 8), netns: newNetNS(t)}
		go func() {
			<-start
			_, errs[i] = bridges[i].Setup(ctx, pods[i].id, pods[i].netns)
			done <- i
		}()
	}
	close(start)
	<-done
	<-done
	for i := range bridges {
		if errs[i] == nil {
			t.Cleanup(func() {
				if err := bridges[i].Remove(ctx, pods[i].id, pods[i].netns); err != nil {
					t.Errorf("Remove: %v", err)
				}
			})
		}
	}
	var inUse *BridgeInUseError
	switch {
	case errs[0] == nil && errs[1] == nil:
		t.Fatal("both state dirs attached a pod to one bridge")
	case errs[0] == nil && !errors.As(errs[1], &inUse), errs[1] == nil && !errors.As(errs[0], &inUse):
		t.Fatalf("loser's error %v, want a *BridgeInUseError", errors.Join(errs...))
	case errs[0] != nil && errs[1] != nil:
		t.Fatalf("both refused: %v", errors.Join(errs...))
	}
}

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
