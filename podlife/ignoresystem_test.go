package podlife_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/reasons"
)

// TestIgnoreSystemContainerd: with Embedded.IgnoreSystem, New uses the private containerd of the
// state dir whether or not a system containerd answers at podlife.DefaultAddress
// (hack/with-system-containerd.sh gives this test one): PrivateDaemon is true, the socket in use
// is the private one, and a SIGKILLed private containerd is started again by the Runtime itself
// (a pod's readiness comes back, a new daemon PID). The system daemon's namespaces and
// containers are the same before and after.
func TestIgnoreSystemContainerd(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	before, sysErr := systemContainerdSnapshot(ctx)
	if sysErr != nil {
		t.Logf("no system containerd at %s (%v): only the private daemon is checked", podlife.DefaultAddress, sysErr)
	} else {
		t.Logf("a system containerd answers at %s: %s", podlife.DefaultAddress, before)
	}
	h, ctrdDir := privateHarness(t, testContainerdBinary(t)) // podlife.WithoutSystemContainerd: IgnoreSystem
	first, err := daemon.Lookup(ctrdDir)
	if err != nil {
		t.Fatalf("Lookup: %v", err)
	}
	if !h.rt.PrivateDaemon() || first.Address == podlife.DefaultAddress {
		t.Fatalf("PrivateDaemon() = %v, private daemon at %s: want the private one", h.rt.PrivateDaemon(), first.Address)
	}
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "ignoresys", TerminationGracePeriod: ptr(5 * time.Second),
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", "touch /tmp/ready; " + loopForever},
			ReadinessProbe: execProbe("test -f /tmp/ready", 100*time.Millisecond, 1),
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := pod.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}
	if err := syscall.Kill(first.PID, syscall.SIGKILL); err != nil {
		t.Fatalf("kill the private containerd: %v", err)
	}
	waitEvent(t, ctx, pod, "", reasons.ContainerdRecovered)
	again, err := daemon.Lookup(ctrdDir)
	if err != nil || again.PID == first.PID || again.Address != first.Address {
		t.Fatalf("after the kill: Lookup = %+v, %v; want a new containerd (not pid %d) at %s", again, err, first.PID, first.Address)
	}
	if res, err := execOutput(ctx, pod, "app", []string{"echo", "back"}); err != nil || strings.TrimSpace(string(res.Output)) != "back" {
		t.Errorf("exec after the restart: %+v, %v", res, err)
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if sysErr == nil {
		after, err := systemContainerdSnapshot(ctx)
		if err != nil || after != before {
			t.Errorf("the system containerd changed: before %s, after %s (%v)", before, after, err)
		}
	}
}

// systemContainerdSnapshot lists the namespaces of the containerd at podlife.DefaultAddress with
// their containers, or fails if none answers there.
func systemContainerdSnapshot(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c, err := client.New(podlife.DefaultAddress, client.WithTimeout(2*time.Second))
	if err != nil {
		return "", err
	}
	defer c.Close()
	nss, err := c.NamespaceService().List(ctx)
	if err != nil {
		return "", err
	}
	slices.Sort(nss)
	var b strings.Builder
	for _, ns := range nss {
		ctrs, err := c.Containers(namespaces.WithNamespace(ctx, ns))
		if err != nil {
			return "", err
		}
		ids := make([]string, 0, len(ctrs))
		for _, ctr := range ctrs {
			ids = append(ids, ctr.ID())
		}
		slices.Sort(ids)
		fmt.Fprintf(&b, "%s%v ", ns, ids)
	}
	return strings.TrimSpace(b.String()), nil
}
