package podlife_test

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// A pod is released from the network it was attached to, whatever the network of the process
// that removes it: Runtime A starts a pod on bridge X (subnet S1, a host port: portmap rules)
// and closes, leaving it running without a manager; Runtime B, on the same state dir but
// configured with bridge Y (subnet S2), removes it from the pod's record. Nothing of the pod
// is left on X: no IPAM lease, no iptables rule, no veth.
func TestUnmanagedRemoveUsesThePodsNetwork(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	m := env.next.Add(1) // a harness number of its own: a name and bridge no one else has
	subnet, ok := env.subnets.take()
	if !ok {
		t.Fatalf("no free test subnet")
	}
	x := h.bridge
	x.Name = fmt.Sprintf("plt-%s-%dx", env.runID, m)
	x.Bridge = fmt.Sprintf("plt%s%dx", env.runID, m)
	x.Subnet = netip.MustParsePrefix(fmt.Sprintf("10.%d.%d.0/24", env.subnetA, subnet))
	nwX, err := cni.NewBridge(x)
	if err != nil {
		env.subnets.give(subnet)
		t.Fatalf("bridge X: %v", err)
	}
	ipamX := filepath.Join(x.StateDir, "ipam", x.Name)
	t.Cleanup(func() { // after the removal; the harness's leak check covers bridge Y
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := nwX.Destroy(ctx); err != nil {
			t.Errorf("destroy bridge X: %v", err)
		} else {
			env.subnets.give(subnet)
		}
		_ = os.Remove(filepath.Join(cni.BridgeClaimDir, x.Bridge+".lock"))
	})

	a := h.anotherWith(t, func(cfg *podlife.Config) { cfg.Network = nwX })
	const name = "netrec"
	t.Cleanup(func() { // whatever happens, before the harness's leak check
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = removePod(ctx, h.rt, name)
	})
	p, err := a.Run(ctx, podlife.PodSpec{Name: name, TerminationGracePeriod: ptr(time.Duration(0)),
		Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever},
			Ports: []podlife.ContainerPort{{ContainerPort: 8080, HostPort: freePort(t)}}}}})
	if err != nil {
		t.Fatalf("Run on bridge X: %v", err)
	}
	ip := p.Sandbox().IP()
	if !x.Subnet.Contains(ip) {
		t.Fatalf("pod IP %s, want one of X's %s", ip, x.Subnet)
	}
	onX, err := podlifetest.HostLeaks("", x.Bridge, x.Name, ipamX)
	if err != nil {
		t.Fatal(err)
	}
	if len(onX) < 3 { // a veth, a lease, the pod's iptables rules
		t.Fatalf("what the pod has on X: %q; want its veth, lease and iptables rules", onX)
	}
	if err := a.Close(); err != nil { // the manager is gone; the pod runs on
		t.Fatalf("Close A: %v", err)
	}

	if err := removePod(ctx, h.rt, name); err != nil {
		t.Fatalf("remove by B (bridge %s): %v", h.bridge.Bridge, err)
	}
	left, err := podlifetest.HostLeaks("", x.Bridge, x.Name, ipamX)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range left {
		t.Errorf("left on X after the removal: %s", l)
	}
}
