//go:build linux

package cni

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A pod must not reach the host's loopback services (CVE-2020-8558): once a
// host port is mapped, portmap's route_localnet lets the kernel accept, on
// the bridge, packets for 127.0.0.1 that a pod sends to the bridge's MAC.
// The test plays such a pod: it routes 127.0.0.1 through the gateway inside
// the pod's netns (what a pod with CAP_NET_RAW can do with crafted packets)
// and dials a listener on the host's 127.0.0.1. The guard drops that, while
// 127.0.0.1:<hostPort> from the host keeps working; without the guard the
// very same dial connects, which shows the test sees the attack.
func TestPodCannotReachHostLocalhost(t *testing.T) {
	b := newTestBridge(t, false)
	hostPort := randomHostPort(t)
	p := attach(t, b, WithPortMappings(PortMapping{HostPort: hostPort, ContainerPort: 8080}))
	listenInNetNS(t, p.netns, 8080, p.id)
	secret := listenOnHostLoopback(t, "host-only")

	if got := localnetGuards(t, b.Config().Name); len(got) != 1 || !strings.Contains(got[0], "-i "+b.Config().Bridge+" ") {
		t.Fatalf("guard rules of the network = %q, want one scoped to -i %s", got, b.Config().Bridge)
	}
	routeLocalhostViaGateway(t, p)

	if greeting, err := dialInNetNS(p.netns, secret, time.Second); err == nil {
		t.Fatalf("pod reached the host's %s (greeting %q)", secret, greeting)
	}
	expectGreeting(t, fmt.Sprintf("127.0.0.1:%d", hostPort), p.id)

	// The control: the same attack without the guard gets through.
	if err := unguardLocalnet(context.Background(), b.Config().Name, b.Config().Bridge); err != nil {
		t.Fatal(err)
	}
	greeting, err := dialInNetNS(p.netns, secret, 5*time.Second)
	if err != nil || greeting != "host-only" {
		t.Fatalf("without the guard the pod's dial of %s = %q, %v; the test does not reproduce the attack", secret, greeting, err)
	}
}

// A second pod with a host port does not add a second guard.
func TestLocalnetGuardIsAddedOnce(t *testing.T) {
	b := newTestBridge(t, false)
	for range 2 {
		attach(t, b, WithPortMappings(PortMapping{HostPort: randomHostPort(t), ContainerPort: 8080}))
	}
	if got := localnetGuards(t, b.Config().Name); len(got) != 1 {
		t.Fatalf("guard rules = %q, want exactly one", got)
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

// localnetGuards returns the IPv4 filter rules guarding network, on any
// bridge.
func localnetGuards(t testing.TB, network string) []string {
	t.Helper()
	tab, err := ipTools()[0].dump(context.Background(), "filter")
	if err != nil {
		t.Fatalf("dump filter: %v", err)
	}
	var found []string
	if tab != nil {
		for _, r := range tab.rules {
			if r.comment == LocalnetGuardComment(network) || strings.Contains(r.line, network) {
				found = append(found, r.line)
			}
		}
	}
	return found
}

// listenOnHostLoopback serves greeting on 127.0.0.1 of the host, at a
// random port, and returns the address.
func listenOnHostLoopback(t testing.TB, greeting string) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = io.WriteString(c, greeting+"\n")
			_ = c.Close()
		}
	}()
	return ln.Addr().String()
}

// routeLocalhostViaGateway makes the pod send packets for 127.0.0.1 out of
// eth0 to its gateway, the host's bridge: it lets eth0 carry 127/8, takes
// 127.0.0.1 off the pod's lo (else the host's replies from 127.0.0.1 are
// martians to the pod), and routes 127.0.0.1 via the gateway.
func routeLocalhostViaGateway(t testing.TB, p *pod) {
	t.Helper()
	if !p.res.Gateway.IsValid() {
		t.Fatalf("no gateway in result %+v", p.res)
	}
	for _, args := range [][]string{
		{"sh", "-c", "echo 1 > /proc/sys/net/ipv4/conf/eth0/route_localnet"}, // procps may be missing
		{"ip", "address", "flush", "dev", "lo"},
		{"ip", "route", "add", "127.0.0.1/32", "via", p.res.Gateway.String(), "dev", "eth0", "src", p.res.IP.String()},
	} {
		cmd := exec.Command("nsenter", append([]string{"--net=" + p.netns, "--"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("in the pod's netns, %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
}

// dialInNetNS connects to addr from the netns at nsPath and returns the
// first line the server sends. The dial runs on a throwaway OS thread that
// joins the netns (and dies with the goroutine).
func dialInNetNS(nsPath, addr string, timeout time.Duration) (string, error) {
	type result struct {
		line string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with us
		line, err := func() (string, error) {
			fd, err := unix.Open(nsPath, unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if err != nil {
				return "", err
			}
			defer unix.Close(fd)
			if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
				return "", err
			}
			c, err := net.DialTimeout("tcp4", addr, timeout)
			if err != nil {
				return "", err
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(timeout))
			line, err := bufio.NewReader(c).ReadString('\n')
			return strings.TrimSpace(line), err
		}()
		ch <- result{line, err}
	}()
	r := <-ch
	return r.line, r.err
}
