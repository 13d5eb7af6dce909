//go:build linux

package cni

import (
	"context"
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
