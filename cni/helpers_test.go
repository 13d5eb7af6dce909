//go:build linux

package cni

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/internal/cnipath"
	"github.com/podlife/podlife/internal/sandboxns"
	"golang.org/x/sys/unix"
)

func requireRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
}

// randomSuffix returns n random bytes in hex.
func randomSuffix(t testing.TB, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// newTestBridge makes a Bridge with a bridge name, network name and /24
// that earlier runs cannot have left behind, and destroys it (checking for
// leaks) when the test ends.
func newTestBridge(t testing.TB, ipMasq bool) *Bridge {
	t.Helper()
	requireRoot(t)
	suffix := randomSuffix(t, 3)
	var r [2]byte
	if _, err := rand.Read(r[:]); err != nil {
		t.Fatal(err)
	}
	subnet := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 200 + r[0]%50, r[1], 0}), 24)
	b, err := NewBridge(BridgeConfig{
		Name:     "plt-" + suffix,
		Bridge:   "plt" + suffix,
		Subnet:   subnet,
		StateDir: t.TempDir(),
		NoIPMasq: !ipMasq,
		// The plugins pinned in go.mod, which `make` builds; else the system's.
		PluginDirs: cnipath.Dirs(filepath.Join("..", ".cache", "cni", "bin")),
	})
	if err != nil {
		t.Fatalf("NewBridge: %v", err)
	}
	t.Cleanup(func() {
		if err := b.Destroy(context.Background()); err != nil {
			t.Errorf("Destroy: %v", err)
		}
		assertNoLeaks(t, b)
		assertNoPins(t, b)
		removeClaimLock(t, b)
	})
	return b
}

// removeClaimLock deletes the host-wide lock file of b's bridge, which
// Destroy leaves (see BridgeClaimDir); the test's bridge name is its own.
func removeClaimLock(t testing.TB, b *Bridge) {
	t.Helper()
	if err := os.Remove(filepath.Join(BridgeClaimDir, b.Config().Bridge+".lock")); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Error(err)
	}
}

// newNetNS pins a fresh network namespace and returns its path. It is
// unpinned when the test ends.
func newNetNS(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ns")
	paths, err := sandboxns.Create(dir, []sandboxns.Kind{sandboxns.Net}, "")
	if err != nil {
		t.Fatalf("sandboxns.Create: %v", err)
	}
	t.Cleanup(func() {
		if err := sandboxns.Remove(dir); err != nil {
			t.Errorf("sandboxns.Remove: %v", err)
		}
	})
	return paths[sandboxns.Net]
}

// pod is a pod attached to a test bridge.
type pod struct {
	id    string
	netns string
	res   *Result
}

// attach sets up a new pod on b and removes it when the test ends.
func attach(t testing.TB, b *Bridge, opts ...AttachOption) *pod {
	t.Helper()
	p := &pod{id: "pod-" + randomSuffix(t, 8), netns: newNetNS(t)}
	res, err := b.Setup(context.Background(), p.id, p.netns, opts...)
	if err != nil {
		t.Fatalf("Setup: %v", err)
	}
	p.res = res
	t.Cleanup(func() {
		if err := b.Remove(context.Background(), p.id, p.netns); err != nil {
			t.Errorf("Remove: %v", err)
		}
	})
	return p
}

// hostVeth returns the host-side interface name from a pod's result.
func hostVeth(t testing.TB, res *Result) string {
	t.Helper()
	for _, iface := range res.Raw().Interfaces {
		if iface.Sandbox == "" && strings.HasPrefix(iface.Name, "veth") {
			return iface.Name
		}
	}
	t.Fatalf("no host veth in result %+v", res.Raw())
	return ""
}

// listenInNetNS starts a TCP server inside the netns at nsPath that greets
// every connection with greeting. A socket belongs to the netns of the
// thread that creates it, so the listener is created on a throwaway thread
// and then served from ordinary goroutines.
func listenInNetNS(t testing.TB, nsPath string, port int, greeting string) {
	t.Helper()
	type result struct {
		ln  net.Listener
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with us
		fd, err := unix.Open(nsPath, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			ch <- result{err: err}
			return
		}
		defer unix.Close(fd)
		if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
			ch <- result{err: err}
			return
		}
		ln, err := net.Listen("tcp4", fmt.Sprintf(":%d", port))
		ch <- result{ln, err}
	}()
	r := <-ch
	if r.err != nil {
		t.Fatalf("listen in %s: %v", nsPath, r.err)
	}
	t.Cleanup(func() { _ = r.ln.Close() })
	go func() {
		for {
			c, err := r.ln.Accept()
			if err != nil {
				return
			}
			_, _ = io.WriteString(c, greeting+"\n")
			_ = c.Close()
		}
	}()
}

// expectGreeting connects to addr and checks that it greets with want.
func expectGreeting(t testing.TB, addr, want string) {
	t.Helper()
	c, err := net.DialTimeout("tcp4", addr, 3*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(3 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatalf("read from %s: %v", addr, err)
	}
	if got := strings.TrimSpace(line); got != want {
		t.Fatalf("greeting from %s = %q, want %q", addr, got, want)
	}
}

// randomHostPort picks a high port, avoiding the ephemeral range.
func randomHostPort(t testing.TB) uint16 {
	t.Helper()
	var b [2]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return 20000 + binary.BigEndian.Uint16(b[:])%10000
}

// natRulesOf returns the nat rules (both families) tagged for pod id on
// network; any pod if id is empty.
func natRulesOf(t testing.TB, network, id string) []string {
	t.Helper()
	return natRules(t, func(r rule) bool {
		if r.comment == MasqueradeComment(network) {
			return false // the network's, not a pod's
		}
		return ownedBy(r.comment, network, id) || strings.Contains(r.line, network)
	})
}

// natRules returns the lines of the nat rules (both families) that keep accepts.
func natRules(t testing.TB, keep func(rule) bool) []string {
	t.Helper()
	var found []string
	for _, tool := range ipTools() {
		tab, err := tool.dump(context.Background(), "nat")
		if err != nil {
			t.Fatalf("dump nat: %v", err)
		}
		if tab == nil {
			continue
		}
		for _, r := range tab.rules {
			if keep(r) {
				found = append(found, r.line)
			}
		}
	}
	return found
}

// linkExists reports whether a host link called name exists.
func linkExists(t testing.TB, name string) bool {
	t.Helper()
	_, ok, err := linkIndex(name)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// waitLinkGone waits for the kernel to delete a link (a netns is torn down
// asynchronously after its last reference goes).
func waitLinkGone(t testing.TB, name string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for linkExists(t, name) {
		if time.Now().After(deadline) {
			t.Fatalf("link %s still exists", name)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// leaseFile is host-local's lease file for ip on b's network.
func leaseFile(b *Bridge, ip netip.Addr) string {
	return filepath.Join(b.Config().StateDir, "ipam", b.Config().Name, ip.String())
}

// assertNoLeaks checks that nothing of b's network is left on the host:
// no bridge or ports, no nat or filter rules naming the network, no IPAM data,
// and no cache entries.
func assertNoLeaks(t testing.TB, b *Bridge) {
	t.Helper()
	cfg := b.Config()
	if linkExists(t, cfg.Bridge) {
		t.Errorf("bridge %s still exists", cfg.Bridge)
	}
	if ports, err := bridgePorts(cfg.Bridge); err != nil || len(ports) > 0 {
		t.Errorf("bridge ports left: %v (%v)", ports, err)
	}
	if rules := natRulesOf(t, cfg.Name, ""); len(rules) > 0 {
		t.Errorf("nat rules left for %s: %q", cfg.Name, rules)
	}
	if rules := localnetGuards(t, cfg.Name); len(rules) > 0 {
		t.Errorf("filter rules left for %s: %q", cfg.Name, rules)
	}
	if rules := masqueradeRules(t, cfg.Name); len(rules) > 0 {
		t.Errorf("masquerade rules left for %s: %q", cfg.Name, rules)
	}
	if _, err := os.Stat(filepath.Join(cfg.StateDir, "ipam", cfg.Name)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("IPAM data left: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(cfg.StateDir, "cache", "results")); len(entries) > 0 {
		t.Errorf("cache entries left: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(BridgeClaimDir, cfg.Bridge+".json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("bridge claim left: %v", err)
	}
}

// assertNoPins checks that no netns pin of the test is still mounted; the
// pins live in sibling temp dirs of the state dir.
func assertNoPins(t testing.TB, b *Bridge) {
	t.Helper()
	mountinfo, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	if root := filepath.Dir(b.Config().StateDir); strings.Contains(string(mountinfo), root) {
		t.Errorf("mounts left under %s", root)
	}
}
