package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/podlife/podlife/podlife/podlifetest"
)

const netrecManifest = `apiVersion: v1
kind: Pod
metadata:
  name: cli-netrec
spec:
  terminationGracePeriodSeconds: 0
  containers:
  - name: app
    image: podlife.cli/busybox:1
    command: ["/bin/sh", "-c", "trap 'exit 0' TERM; while :; do sleep 0.1; done"]
    ports: [{containerPort: 8080, hostPort: %d}]
`

// A supervisor started with one network's flags is SIGKILLed; rm from a process given another
// network's flags releases the pod from its own network (the one its record names): no veth on
// its bridge, no iptables rule, no IPAM lease left.
func TestRmOfUnmanagedPodWithOtherNetworkFlags(t *testing.T) {
	dir := cliTestDir(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hostPort := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	manifest := filepath.Join(dir, "pod.yaml")
	if err := os.WriteFile(manifest, []byte(fmt.Sprintf(netrecManifest, hostPort)), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "podlife")
	if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	n := os.Getpid() % 100000
	state := filepath.Join(dir, "state")
	c := cliProc{t: t, bin: bin, common: []string{"--state-dir", state}}
	bridgeX, networkX := fmt.Sprintf("plnrx%d", n), fmt.Sprintf("plnrx-%d", n)
	bridgeY, networkY := fmt.Sprintf("plnry%d", n), fmt.Sprintf("plnry-%d", n)
	subnetX := fmt.Sprintf("10.%d.%d.0/24", 150+os.Getpid()%50, os.Getpid()%250)
	subnetY := fmt.Sprintf("10.%d.%d.0/24", 100+os.Getpid()%50, os.Getpid()%250)
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", bridgeY).Run() })

	_, supervisor := c.runDetached("cli-netrec", bridgeX, syscall.SIGKILL, "-f", manifest, "--busybox", "podlife.cli/busybox:1",
		"--network", networkX, "--bridge", bridgeX, "--subnet", subnetX)
	c.waitPS("the container running", func(l podList) bool {
		return len(l.Items) == 1 && l.Items[0].Status.ContainerStatuses[0].State.Running != nil
	})
	ipam := filepath.Join(state, "cni", "ipam", networkX)
	if on, err := podlifetest.HostLeaks("", bridgeX, networkX, ipam); err != nil || len(on) < 3 {
		t.Fatalf("what the pod has on %s: %q (%v); want its veth, lease and iptables rules", bridgeX, on, err)
	}
	if err := syscall.Kill(supervisor, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, supervisor)

	if out, errOut, code := c.run("rm", "--network", networkY, "--bridge", bridgeY, "--subnet", subnetY, "cli-netrec"); code != 0 {
		t.Fatalf("rm with other network flags: exit %d\n%s%s", code, out, errOut)
	}
	left, err := podlifetest.HostLeaks("", bridgeX, networkX, ipam)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range left {
		t.Errorf("left on %s after rm: %s", bridgeX, l)
	}
}

// Each network flag not given is filled from the ones run saved, flag by flag.
func TestNetworkFlagsFilledOneByOne(t *testing.T) {
	saver := &common{stateDir: t.TempDir(), network: "n1", bridge: "b1", subnet: "10.1.0.0/24", cniPath: "/p1"}
	if err := saver.saveNetwork(); err != nil {
		t.Fatal(err)
	}
	c := &common{stateDir: saver.stateDir, subnet: "10.2.0.0/24"}
	c.fillSavedNetwork()
	if c.network != "n1" || c.bridge != "b1" || c.subnet != "10.2.0.0/24" || c.cniPath != "/p1" {
		t.Errorf("filled flags %+v, want n1, b1, the given subnet 10.2.0.0/24 and /p1", *c)
	}
}
