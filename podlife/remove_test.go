package podlife_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// flakyDel is the harness's network whose next fails CNI DELs fail (before running the plugins).
type flakyDel struct {
	cni.Network
	fails atomic.Int32
}

func (f *flakyDel) Remove(ctx context.Context, id, netns string, opts ...cni.AttachOption) error {
	if f.fails.Add(-1) >= 0 {
		return errors.New("injected CNI DEL failure")
	}
	f.fails.Store(0)
	return f.Network.Remove(ctx, id, netns, opts...)
}

// A CNI DEL that fails makes Remove (the manager's) and Pod.Remove (of a pod without a manager)
// fail and keep the pod's directory, whose sandbox.json is the only record of the attachment: the
// pod's IP lease is still held. Pod.Remove again then releases it and removes everything.
func TestRemoveKeepsRecordWhenCNIDelFails(t *testing.T) {
	nw := &flakyDel{}
	h := newHarness(t, func(c *podlife.Config) { nw.Network = c.Network; c.Network = nw })
	other := h.another(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ipam := filepath.Join(h.stateDir, "cni", "ipam")
	t.Cleanup(func() {
		nw.fails.Store(0)
		for _, name := range []string{"managed", "orphan"} {
			if err := removePod(context.Background(), h.rt, name); err != nil && !errors.Is(err, podlife.ErrNotFound) {
				t.Errorf("cleanup: Pod.Remove %s: %v", name, err)
			}
		}
	})
	spec := func(name string) podlife.PodSpec {
		return podlife.PodSpec{Name: name, TerminationGracePeriod: ptr(time.Duration(0)), Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever},
		}}}
	}
	leases := func() []string {
		leaks, err := podlifetest.HostLeaks("", "", "", ipam)
		if err != nil {
			t.Fatal(err)
		}
		return leaks
	}
	attachment := func(dir string) string {
		b, _ := os.ReadFile(filepath.Join(dir, "sandbox.json"))
		return string(b)
	}

	for _, tc := range []struct {
		name    string
		manager *podlife.Runtime
		fails   int32 // the stop's CNI DEL and Remove's retry (one stop and one remove for both)
	}{
		{"managed", h.rt, 2},
		{"orphan", other, 2},
	} {
		pod, err := tc.manager.Run(ctx, spec(tc.name))
		if err != nil {
			t.Fatalf("%s: Run: %v", tc.name, err)
		}
		dir := pod.Sandbox().Dir()
		if !pod.Sandbox().IP().IsValid() || len(leases()) != 1 {
			t.Fatalf("%s: IP %v, leases %v: want the pod attached", tc.name, pod.Sandbox().IP(), leases())
		}
		remove := func() error { return removePod(ctx, h.rt, tc.name) }
		if tc.manager == h.rt {
			remove = func() error { return pod.Remove(ctx) }
		} else if err := other.Close(); err != nil { // the pod is left without a manager
			t.Fatal(err)
		}
		nw.fails.Store(tc.fails)
		if err := remove(); err == nil || !strings.Contains(err.Error(), "injected CNI DEL failure") {
			t.Fatalf("%s: remove = %v, want the CNI DEL failure", tc.name, err)
		}
		if got := leases(); len(got) != 1 {
			t.Errorf("%s: leases after the failed remove %v, want the pod's still held", tc.name, got)
		}
		if a := attachment(dir); !strings.Contains(a, `"network":"attached"`) {
			t.Errorf("%s: sandbox.json after the failed remove %q, want the attachment recorded", tc.name, a)
		}
		if rec, err := h.rt.LookupPod(ctx, tc.name); err != nil || rec.Managed() {
			t.Errorf("%s: LookupPod after the failed remove: %+v, %v; want the pod listed, unmanaged", tc.name, rec, err)
		}
		// The retry: from the record, the attachment is released and the pod removed.
		if err := removePod(ctx, h.rt, tc.name); err != nil {
			t.Fatalf("%s: Pod.Remove retry: %v", tc.name, err)
		}
		if got := leases(); len(got) != 0 {
			t.Errorf("%s: leases after the retry %v, want none", tc.name, got)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: pod dir after the retry: %v, want it gone", tc.name, err)
		}
	}
	// The harness's cleanup checks that nothing else is left (veths, iptables rules, mounts).
}
