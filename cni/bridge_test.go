//go:build linux

package cni

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"github.com/podlife/podlife/internal/sandboxns"
)

func TestSetupGivesReachableAddress(t *testing.T) {
	b := newTestBridge(t, true)
	p := attach(t, b)
	cfg := b.Config()

	if !cfg.Subnet.Contains(p.res.IP) {
		t.Fatalf("IP %s not in %s", p.res.IP, cfg.Subnet)
	}
	if p.res.Prefix != netip.PrefixFrom(p.res.IP, cfg.Subnet.Bits()) {
		t.Errorf("Prefix = %s", p.res.Prefix)
	}
	if want := cfg.Subnet.Addr().Next(); p.res.Gateway != want {
		t.Errorf("Gateway = %s, want %s", p.res.Gateway, want)
	}
	if p.res.Interface != "eth0" || p.res.MAC == "" {
		t.Errorf("Interface %q, MAC %q", p.res.Interface, p.res.MAC)
	}
	if _, err := os.Stat(leaseFile(b, p.res.IP)); err != nil {
		t.Errorf("no lease: %v", err)
	}

	listenInNetNS(t, p.netns, 8080, p.id)
	expectGreeting(t, netip.AddrPortFrom(p.res.IP, 8080).String(), p.id)
}

func TestTwoPodsGetDifferentAddresses(t *testing.T) {
	b := newTestBridge(t, false)
	p1, p2 := attach(t, b), attach(t, b)
	if p1.res.IP == p2.res.IP {
		t.Fatalf("both pods got %s", p1.res.IP)
	}
	listenInNetNS(t, p1.netns, 8080, p1.id)
	listenInNetNS(t, p2.netns, 8080, p2.id)
	expectGreeting(t, netip.AddrPortFrom(p1.res.IP, 8080).String(), p1.id)
	expectGreeting(t, netip.AddrPortFrom(p2.res.IP, 8080).String(), p2.id)
}

func TestHostPortMapping(t *testing.T) {
	b := newTestBridge(t, true)
	hostPort := randomHostPort(t)
	p := attach(t, b, WithPortMappings(PortMapping{HostPort: hostPort, ContainerPort: 8080}))
	listenInNetNS(t, p.netns, 8080, p.id)

	expectGreeting(t, fmt.Sprintf("127.0.0.1:%d", hostPort), p.id)
	if rules := natRulesOf(t, b.Config().Name, p.id); len(rules) == 0 {
		t.Error("no nat rules tagged for the pod")
	}
}

// assertDetached checks that Remove undid everything Setup did for p.
func assertDetached(t *testing.T, b *Bridge, p *pod, veth string) {
	t.Helper()
	if _, err := os.Stat(leaseFile(b, p.res.IP)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lease not released: %v", err)
	}
	waitLinkGone(t, veth)
	if rules := natRulesOf(t, b.Config().Name, p.id); len(rules) > 0 {
		t.Errorf("nat rules left: %q", rules)
	}
	cache := filepath.Join(b.Config().StateDir, "cache", "results", b.Config().Name+"-"+p.id+"-eth0")
	if _, err := os.Stat(cache); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cache entry left: %v", err)
	}
}

func TestRemoveReleasesEverythingAndIsIdempotent(t *testing.T) {
	b := newTestBridge(t, true)
	p := attach(t, b, WithPortMappings(PortMapping{HostPort: randomHostPort(t), ContainerPort: 80, Protocol: "udp"}))
	veth := hostVeth(t, p.res)
	if !linkExists(t, veth) {
		t.Fatalf("veth %s missing after Setup", veth)
	}
	ctx := context.Background()
	for i := range 2 {
		// No options: the port mappings come from the CNI cache.
		if err := b.Remove(ctx, p.id, p.netns); err != nil {
			t.Fatalf("Remove #%d: %v", i+1, err)
		}
	}
	assertDetached(t, b, p, veth)
}

func TestRemoveAfterNetNSIsGone(t *testing.T) {
	for name, leftover := range map[string]func(t *testing.T, path string){
		"deleted": func(*testing.T, string) {},
		// An unmounted pin that was not deleted is a plain empty file.
		"plain file": func(t *testing.T, path string) {
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			b := newTestBridge(t, true)
			p := attach(t, b, WithPortMappings(PortMapping{HostPort: randomHostPort(t), ContainerPort: 8080}))
			veth := hostVeth(t, p.res)
			if err := sandboxns.Remove(filepath.Dir(p.netns)); err != nil {
				t.Fatal(err)
			}
			leftover(t, p.netns)
			if err := b.Remove(context.Background(), p.id, p.netns); err != nil {
				t.Fatalf("Remove: %v", err)
			}
			assertDetached(t, b, p, veth)
		})
	}
}

func TestSetupErrorNamesNetworkAndPod(t *testing.T) {
	b := newTestBridge(t, false)
	_, err := b.Setup(context.Background(), "pod-x", filepath.Join(t.TempDir(), "missing"))
	want := fmt.Sprintf("cni: ADD network %q for pod %q: ", b.Config().Name, "pod-x")
	if err == nil || len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
		t.Fatalf("error = %v, want prefix %q", err, want)
	}
}

func TestConcurrentPodsOnSharedStateDir(t *testing.T) {
	b1 := newTestBridge(t, true)
	// A second Bridge on the same state dir stands in for another process.
	b2, err := NewBridge(b1.Config())
	if err != nil {
		t.Fatal(err)
	}
	const n = 6
	netns := make([]string, n)
	for i := range netns {
		netns[i] = newNetNS(t)
	}
	ctx := context.Background()
	nets := []*Bridge{b1, b2}

	results := make([]*Result, n)
	errs := make(chan error, n)
	basePort := randomHostPort(t)
	for i := range n {
		go func() {
			opt := WithPortMappings(PortMapping{HostPort: basePort + uint16(i), ContainerPort: 80})
			res, err := nets[i%2].Setup(ctx, fmt.Sprintf("cc-%d", i), netns[i], opt)
			results[i] = res
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	seen := make(map[netip.Addr]bool)
	for _, r := range results {
		if r != nil && seen[r.IP] {
			t.Errorf("address %s given twice", r.IP)
		}
		if r != nil {
			seen[r.IP] = true
		}
	}
	for i := range n {
		go func() { errs <- nets[(i+1)%2].Remove(ctx, fmt.Sprintf("cc-%d", i), netns[i]) }()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if rules := natRulesOf(t, b1.Config().Name, ""); len(rules) > 0 {
		t.Errorf("nat rules left: %q", rules)
	}
}

func TestFromConfList(t *testing.T) {
	b := newTestBridge(t, false)
	n, err := FromConfList(b.Config().StateDir, b.ConfList(), b.Config().PluginDirs...)
	if err != nil {
		t.Fatal(err)
	}
	netns := newNetNS(t)
	ctx := context.Background()
	res, err := n.Setup(ctx, "user-pod", netns)
	if err != nil {
		t.Fatal(err)
	}
	if !b.Config().Subnet.Contains(res.IP) {
		t.Errorf("IP %s not in %s", res.IP, b.Config().Subnet)
	}
	if err := n.Remove(ctx, "user-pod", netns); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(leaseFile(b, res.IP)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lease not released: %v", err)
	}
}

func TestFromConfListRejects(t *testing.T) {
	dir := t.TempDir()
	for name, conf := range map[string]string{
		"not json":       `{`,
		"no plugins":     `{"cniVersion":"1.0.0","name":"x","plugins":[]}`,
		"missing plugin": `{"cniVersion":"1.0.0","name":"x","plugins":[{"type":"no-such-plugin"}]}`,
	} {
		if _, err := FromConfList(dir, []byte(conf), fakePluginDir(t, "bridge")); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestDestroyDetachesRemainingPods(t *testing.T) {
	b := newTestBridge(t, true)
	p := attach(t, b, WithPortMappings(PortMapping{HostPort: randomHostPort(t), ContainerPort: 80}))
	ctx := context.Background()
	for i := range 2 {
		if err := b.Destroy(ctx); err != nil {
			t.Fatalf("Destroy #%d: %v", i+1, err)
		}
	}
	assertNoLeaks(t, b)
	if linkExists(t, hostVeth(t, p.res)) {
		t.Error("pod veth survived Destroy")
	}
}

func TestSetupTwiceKeepsFirstAttachment(t *testing.T) {
	b := newTestBridge(t, false)
	p := attach(t, b)
	if _, err := b.Setup(context.Background(), p.id, p.netns); err == nil {
		t.Fatal("second Setup succeeded")
	}
	if _, err := os.Stat(leaseFile(b, p.res.IP)); err != nil {
		t.Errorf("first lease gone: %v", err)
	}
	listenInNetNS(t, p.netns, 8080, p.id)
	expectGreeting(t, netip.AddrPortFrom(p.res.IP, 8080).String(), p.id)
}
