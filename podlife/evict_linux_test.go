package podlife_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
	"github.com/podlife/podlife/podlife/reasons"
)

// tmpfsHarness is a harness whose state directory is a tmpfs of size bytes, mounted for the
// test and unmounted after the harness's cleanup removed its pods.
func tmpfsHarness(t *testing.T, size int64, opts ...harnessOption) (*harness, string) {
	t.Helper()
	if env.skip != "" {
		t.Skip(env.skip)
	}
	dir := filepath.Join(env.dir, fmt.Sprintf("tmpfs-%s-%d", env.runID, env.next.Add(1)))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		t.Fatalf("mount tmpfs: %v", err)
	}
	t.Cleanup(func() { // runs after the harness's cleanup
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, l := range podlifetest.LoggerLeaks(ctx, dir) {
			t.Errorf("leak: %s", l)
		}
		if entries, _ := os.ReadDir(filepath.Join(dir, "pods")); len(entries) > 0 {
			t.Errorf("leak: %d pod state dirs left under %s", len(entries), dir)
		}
		if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
		_ = os.Remove(dir)
	})
	h := newHarness(t, append([]harnessOption{func(c *podlife.Config) { c.StateDir = dir }}, opts...)...)
	return h, dir
}

func withEviction(period time.Duration, nodefs string) harnessOption {
	return func(c *podlife.Config) { c.Eviction = podlife.Eviction{Period: period, NodefsAvailable: nodefs} }
}

// A pod over a local storage limit is evicted as by the kubelet (reason, message, events, no
// restart), whichever limit it crossed; a pod next to it on the same state dir runs on.
func TestEvictionLocalStorage(t *testing.T) {
	h, _ := tmpfsHarness(t, 96<<20, withEviction(200*time.Millisecond, ""))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const mi = 1 << 20
	write := func(path string, mib int) []string {
		return []string{"/bin/sh", "-c", fmt.Sprintf("dd if=/dev/zero of=%s bs=1048576 count=%d 2>/dev/null; %s", path, mib, loopForever)}
	}
	bystander, err := h.rt.Run(ctx, podlife.PodSpec{Name: "bystander", TerminationGracePeriod: ptr(2 * time.Second),
		Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}}}})
	if err != nil {
		t.Fatalf("Run bystander: %v", err)
	}
	scratch := []podlife.Volume{{Name: "scratch", EmptyDir: &podlife.EmptyDirVolume{SizeLimit: 4 * mi}}}
	mount := []podlife.VolumeMount{{Name: "scratch", MountPath: "/scratch"}}
	tests := []struct {
		name, message, container string
		spec                     podlife.PodSpec
	}{
		{"emptydir", `Usage of EmptyDir volume "scratch" exceeds the limit "4Mi". `, "app", podlife.PodSpec{Volumes: scratch,
			Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: write("/scratch/f", 8), VolumeMounts: mount}}}},
		{"layer", `Container app exceeded its local ephemeral storage limit "1Mi". `, "app", podlife.PodSpec{
			Containers: []podlife.ContainerSpec{
				{Name: "app", Image: testImage, Command: write("/tmp/f", 3), Resources: podlife.Resources{EphemeralStorageLimit: mi}},
				{Name: "roomy", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}, Resources: podlife.Resources{EphemeralStorageLimit: 64 * mi}},
			}}},
		{"total", "Pod ephemeral local storage usage exceeds the total limit of containers 2Mi. ", "app", podlife.PodSpec{
			Volumes: []podlife.Volume{{Name: "scratch", EmptyDir: &podlife.EmptyDirVolume{}}},
			Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: write("/scratch/f", 4), VolumeMounts: mount,
				Resources: podlife.Resources{EphemeralStorageLimit: 2 * mi}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := tt.spec
			spec.Name, spec.TerminationGracePeriod = "evict-"+tt.name, ptr(30*time.Second)
			began := time.Now()
			pod, err := h.rt.Run(ctx, spec)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			st, err := pod.Wait(ctx)
			if err != nil || st.Phase != podlife.PhaseFailed || st.Reason != reasons.Evicted || st.Message != tt.message {
				t.Fatalf("phase %s reason %q message %q (%v), want Failed Evicted %q", st.Phase, st.Reason, st.Message, err, tt.message)
			}
			// The kubelet's 1 s eviction grace (2 s after the stop signal at least), not the
			// pod's 30 s: the containers trap TERM, so they exit at once.
			if d := time.Since(began); d > 20*time.Second {
				t.Errorf("evicted after %v", d)
			}
			if ev := events(pod, "", reasons.Evicted); len(ev) != 1 || ev[0].Type != podlife.EventWarning || ev[0].Message != tt.message || ev[0].Container != "" {
				t.Errorf("Evicted events = %v, want one Warning on the pod with the message", ev)
			}
			for _, c := range st.ContainerStatuses {
				if len(events(pod, c.Name, reasons.Killing)) == 0 {
					t.Errorf("no Killing event for container %s", c.Name)
				}
				if c.RestartCount != 0 || c.State.Terminated == nil {
					t.Errorf("container %s: restarts %d, state %+v: want terminated, not restarted", c.Name, c.RestartCount, c.State)
				}
			}
			if err := pod.Remove(ctx); err != nil {
				t.Fatalf("Remove: %v", err)
			}
		})
	}
	st := bystander.Status()
	if st.Phase != podlife.PhaseRunning || st.ContainerStatuses[0].State.Running == nil || st.ContainerStatuses[0].RestartCount != 0 {
		t.Errorf("bystander: phase %s, state %+v, want running on", st.Phase, st.ContainerStatuses[0].State)
	}
}

// Under disk pressure a new pod is refused up front, with a typed error, an event and nothing
// written; a running pod is not touched, and once space is back pods start again.
func TestEvictionDiskPressure(t *testing.T) {
	h, dir := tmpfsHarness(t, 64<<20, withEviction(0, "50%"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	spec := func(name string) podlife.PodSpec {
		return podlife.PodSpec{Name: name, TerminationGracePeriod: ptr(2 * time.Second),
			Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}}}}
	}
	running, err := h.rt.Run(ctx, spec("running"))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	ballast := filepath.Join(dir, "ballast")
	if err := os.WriteFile(ballast, make([]byte, 40<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	evs := h.rt.Subscribe(ctx)
	_, err = h.rt.Run(ctx, spec("refused"))
	var pe *podlife.DiskPressureError
	if !errors.As(err, &pe) || !errors.Is(err, podlife.ErrDiskPressure) {
		t.Fatalf("Run under pressure: %v, want a *DiskPressureError", err)
	}
	if pe.Threshold.Percent != 50 || pe.Available >= pe.Min || pe.Dir != dir {
		t.Errorf("error fields %+v", pe)
	}
	for _, s := range []string{"The node had condition: [DiskPressure]. ", "nodefs.available<50%", "available of 64Mi"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
	for e := range evs {
		if e.Pod == "refused" {
			if e.Type != podlife.EventWarning || e.Reason != reasons.Evicted || !strings.HasPrefix(e.Message, "The node had condition: [DiskPressure]. ") {
				t.Errorf("event %v, want Warning Evicted", e)
			}
			break
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "pods", "refused")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("refused pod's directory: %v, want none", err)
	}
	if _, err := h.rt.LookupPod(ctx, "refused"); !errors.Is(err, podlife.ErrNotFound) {
		t.Errorf("LookupPod(refused) = %v, want ErrNotFound", err)
	}
	if st := running.Status(); st.Phase != podlife.PhaseRunning || st.ContainerStatuses[0].State.Running == nil {
		t.Errorf("running pod under pressure: %s %+v", st.Phase, st.ContainerStatuses[0].State)
	}
	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	if _, err := h.rt.Run(ctx, spec("admitted")); err != nil {
		t.Errorf("Run once space is back: %v", err)
	}
}
