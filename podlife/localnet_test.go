package podlife_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/podlife"
)

// A pod cannot reach services that listen only on the host's 127.0.0.1 (CVE-2020-8558): with a
// hostPort mapped, portmap's route_localnet lets the kernel deliver to them the packets a pod
// sends for 127.0.0.1 to its gateway's MAC. The test gives the pod that route (what a container
// with CAP_NET_RAW gets with crafted packets; without NET_ADMIN it cannot change routes, so the
// test does it from the pod's netns) and dials from inside the container: the network's guard
// drops it, while the host still reaches 127.0.0.1:<hostPort>. Without the guard the same dial
// gets through, which shows the test sees the attack.
func TestPodCannotReachHostLocalhost(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	secret := serveOnHostLoopback(t, "host-only")
	hostPort := freePort(t)
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "localnet", TerminationGracePeriod: ptr(3 * time.Second),
		Containers: []podlife.ContainerSpec{{
			Name: "web", Image: testImage,
			Command: []string{"/bin/sh", "-c", "mkdir -p /www && echo hello-from-pod > /www/index.html && " +
				"trap 'exit 0' TERM; httpd -f -p 8080 -h /www & wait"},
			Ports: []podlife.ContainerPort{{ContainerPort: 8080, HostPort: hostPort}},
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	routeLocalhostViaGateway(t, pod.Sandbox().NetNSPath(), h.bridge.Subnet.Addr().Next().String(), pod.Status().PodIP.String())
	dial := func() string {
		t.Helper()
		res, err := execOutput(ctx, pod, "web", []string{"/bin/sh", "-c", fmt.Sprintf("nc -w 2 127.0.0.1 %d </dev/null; echo rc=$?", secret.Port)})
		if err != nil {
			t.Fatalf("exec nc: %v", err)
		}
		return strings.TrimSpace(string(res.Output))
	}

	if got := dial(); strings.Contains(got, "host-only") || !strings.Contains(got, "rc=") {
		t.Errorf("the pod dialled the host's %s: %q, want a failed connection", secret, got)
	}
	if body := get(t, fmt.Sprintf("http://127.0.0.1:%d/", hostPort)); strings.TrimSpace(body) != "hello-from-pod" {
		t.Errorf("host -> 127.0.0.1:%d: %q", hostPort, body)
	}

	// The control: without the guard the same dial reaches the host's listener.
	guard := []string{"-w", "-D", "INPUT", "-i", h.bridge.Bridge, "-d", "127.0.0.0/8", "-m", "conntrack",
		"!", "--ctstate", "RELATED,ESTABLISHED,DNAT", "-m", "comment", "--comment", cni.LocalnetGuardComment(h.bridge.Name), "-j", "DROP"}
	if out, err := exec.Command("iptables", guard...).CombinedOutput(); err != nil {
		t.Fatalf("remove the guard: %v: %s", err, out)
	}
	if got := dial(); !strings.Contains(got, "host-only") {
		t.Errorf("without the guard the pod's dial of %s = %q; the test does not reproduce the attack", secret, got)
	}
}

// serveOnHostLoopback greets every connection to a fresh port of the host's 127.0.0.1.
func serveOnHostLoopback(t *testing.T, greeting string) *net.TCPAddr {
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
	return ln.Addr().(*net.TCPAddr)
}

// routeLocalhostViaGateway makes the pod whose netns is at nsPath send packets for 127.0.0.1 out
// of eth0 to the gateway: eth0 may carry 127/8, lo loses 127.0.0.1 (else the host's replies from
// it are martians to the pod), and 127.0.0.1 is routed via the gateway.
func routeLocalhostViaGateway(t *testing.T, nsPath, gateway, podIP string) {
	t.Helper()
	for _, args := range [][]string{
		{"sh", "-c", "echo 1 > /proc/sys/net/ipv4/conf/eth0/route_localnet"}, // procps may be missing
		{"ip", "address", "flush", "dev", "lo"},
		{"ip", "route", "add", "127.0.0.1/32", "via", gateway, "dev", "eth0", "src", podIP},
	} {
		cmd := exec.Command("nsenter", append([]string{"--net=" + nsPath, "--"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("in the pod's netns, %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
}
