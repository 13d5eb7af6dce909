package podlife_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/podlife/daemon"
)

// TestWarmPoolContainerdDiesWithProcess: a process keeps warm pool members on a private
// containerd, and both die at once (SIGKILL; a private containerd dies with the process that
// runs it, as on a host where it is the process's child). The next process's startup garbage
// collection leaves nothing of the members: no directory, container, task, shim, runc init,
// logger, mount, cgroup, network attachment or bridge rule (the harnesses' cleanups check the
// host and the private containerd).
func TestWarmPoolContainerdDiesWithProcess(t *testing.T) {
	h, ctrdDir := privateHarness(t, testContainerdBinary(t))
	info, err := daemon.Lookup(ctrdDir)
	if err != nil {
		t.Fatalf("Lookup: %v", err)
	}
	// The child manager keeps its members on the private containerd, by its address.
	cfgAddr := h.cfg.Address
	h.cfg.Address = info.Address
	cmd := startManager(t, h, "pool", t.TempDir())
	h.cfg.Address = cfgAddr
	members, err := h.rt.ListPoolMembers(context.Background())
	if err != nil || len(members) != 2 || !members[0].Live || !members[0].Ready {
		t.Fatalf("the child's members: %+v, %v; want 2, ready and live", members, err)
	}
	kill(t, cmd)
	if err := syscall.Kill(info.PID, syscall.SIGKILL); err != nil {
		t.Fatalf("kill the private containerd: %v", err)
	}
	rt := h.another(t) // New starts a private containerd again (if none was) and collects
	if members, err := rt.ListPoolMembers(context.Background()); err != nil || len(members) != 0 {
		t.Fatalf("after the startup collection: %+v, %v; want none", members, err)
	}
	if entries, _ := os.ReadDir(filepath.Join(h.stateDir, "pool")); len(entries) != 0 {
		t.Errorf("pool directory after the collection: %d entries left", len(entries))
	}
	now, err := daemon.Lookup(ctrdDir)
	if err != nil {
		t.Fatalf("Lookup after the collection: %v", err)
	}
	c, err := client.New(now.Address)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := namespaces.WithNamespace(context.Background(), h.ns)
	if ctrs, err := c.Containers(ctx); err != nil || len(ctrs) != 0 {
		t.Errorf("containers left in the private containerd: %d, %v", len(ctrs), err)
	}
}
