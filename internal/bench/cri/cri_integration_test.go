package cri

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/podlife/podlife/internal/bench/measure"
)

// TestCRIPodLeavesNothing runs the bench pod through the CRI plugin and removes it: both
// containers run, in the pod's network, and closing the daemon finds no leak (shims, veths,
// iptables rules, IPAM leases, CNI cache entries, cgroups, mounts). It needs root, the
// containerd of PODLIFE_TEST_CONTAINERD and the CNI plugins of PODLIFE_CNI_PATH.
func TestCRIPodLeavesNothing(t *testing.T) {
	bin := os.Getenv("PODLIFE_TEST_CONTAINERD")
	if bin == "" || os.Geteuid() != 0 {
		t.Skip("needs root and PODLIFE_TEST_CONTAINERD")
	}
	dir, err := os.MkdirTemp("", "plb-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	e := &measure.Env{Dir: dir, RunID: strings.TrimPrefix(filepath.Base(dir), "plb-")}
	d, err := startCRI(t.Context(), e, bin, filepath.Join(dir, "cri"))
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			_ = d.close()
		}
	}()
	p, err := d.runCRIPod(t.Context(), "leak-test", e.RunID+"-0")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.containerIDs) != 2 {
		t.Fatalf("%d containers, want 2", len(p.containerIDs))
	}
	for _, id := range p.containerIDs {
		st, err := d.rt.ContainerStatus(t.Context(), &runtimeapi.ContainerStatusRequest{ContainerId: id})
		if err != nil {
			t.Fatal(err)
		}
		if s := st.GetStatus().GetState(); s != runtimeapi.ContainerState_CONTAINER_RUNNING {
			t.Errorf("container %s: %v, want running", st.GetStatus().GetMetadata().GetName(), s)
		}
	}
	sb, err := d.rt.PodSandboxStatus(t.Context(), &runtimeapi.PodSandboxStatusRequest{PodSandboxId: p.sandboxID})
	if err != nil {
		t.Fatal(err)
	}
	if ip := sb.GetStatus().GetNetwork().GetIp(); !strings.HasPrefix(ip, "10.249.") {
		t.Errorf("pod IP %q, want one of the bench's CRI subnet", ip)
	}
	if err := d.removeCRIPod(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	closed = true
	if err := d.close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if _, err := os.Stat(filepath.Join("/sys/class/net", d.net.bridge)); err == nil {
		t.Errorf("bridge %s left", d.net.bridge)
	}
}
