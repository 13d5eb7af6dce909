package podlife_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
)

// cgroupValues reads, from inside the container, its cgroup's CPU quota, CPU shares (v1) or
// weight (v2) and memory limit: "quota shares memory".
const cgroupValues = `if [ -e /sys/fs/cgroup/cpu.max ]; then
  echo "$(cut -d' ' -f1 /sys/fs/cgroup/cpu.max) $(cat /sys/fs/cgroup/cpu.weight) $(cat /sys/fs/cgroup/memory.max)"
else
  echo "$(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us) $(cat /sys/fs/cgroup/cpu/cpu.shares) $(cat /sys/fs/cgroup/memory/memory.limit_in_bytes)"
fi`

// In-place resize on containerd (Pod.Resize, the kubelet's InPlacePodVerticalScaling): a
// container resized in place shows its new CPU quota, shares and memory limit from inside,
// not restarted; one whose resizePolicy says RestartContainer for memory is restarted once
// with the new limit; a resize that changes the pod's QoS class or removes a limit is refused
// naming the field; a memory limit below the container's usage is refused (ErrResizeNotNow);
// the statuses report the resources.
func TestResize(t *testing.T) {
	h := newHarness(t)
	first := h.another(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	const mi = 1 << 20
	guaranteed := podlife.Resources{CPULimit: 200, CPURequest: 200, MemoryLimit: 64 * mi}
	// 24 MiB in a tmpfs are charged to the container's memory cgroup.
	fill := []string{"/bin/sh", "-c", "dd if=/dev/zero of=/dev/shm/fill bs=1048576 count=24 2>/dev/null; exec sleep 3600"}
	spec := podlife.PodSpec{Name: "resize", RestartPolicy: podlife.RestartAlways,
		TerminationGracePeriod: ptr(time.Duration(0)),
		Containers: []podlife.ContainerSpec{
			{Name: "inplace", Image: testImage, Command: fill, Resources: guaranteed},
			{Name: "restarts", Image: testImage, Command: []string{"sleep", "3600"}, Resources: guaranteed,
				ResizePolicy: podlife.ResizePolicy{Memory: podlife.ResizeRestartContainer}},
		}}
	pod, err := first.Run(ctx, spec)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	defer func() {
		if err := pod.Remove(context.WithoutCancel(ctx)); err != nil {
			if p, err := h.rt.Pod(spec.Name); err == nil { // not adopted: removed without a manager
				_ = p.Remove(context.WithoutCancel(ctx))
			}
		}
	}()
	if err := pod.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}
	status := func(name string) podlife.ContainerStatus {
		t.Helper()
		for _, c := range pod.Status().ContainerStatuses {
			if c.Name == name {
				return c
			}
		}
		t.Fatalf("no status of %s", name)
		return podlife.ContainerStatus{}
	}
	values := func(name string) []string { return strings.Fields(execIn(t, ctx, pod, name, cgroupValues)) }
	v2 := strings.HasPrefix(execIn(t, ctx, pod, "inplace", "[ -e /sys/fs/cgroup/cpu.max ] && echo v2 || echo v1"), "v2")
	want := func(quota, shares, weight, mem int64) []string {
		if v2 {
			return []string{strconv.FormatInt(quota, 10), strconv.FormatInt(weight, 10), strconv.FormatInt(mem, 10)}
		}
		return []string{strconv.FormatInt(quota, 10), strconv.FormatInt(shares, 10), strconv.FormatInt(mem, 10)}
	}
	if got, w := values("inplace"), want(20000, 204, 8, 64*mi); strings.Join(got, " ") != strings.Join(w, " ") {
		t.Fatalf("inplace cgroup before = %v, want %v", got, w)
	}
	if st := status("inplace"); st.AllocatedResources != guaranteed || st.Resources == nil || *st.Resources != guaranteed {
		t.Errorf("inplace status resources = %+v / %+v, want %+v", st.AllocatedResources, st.Resources, guaranteed)
	}

	t.Run("in place", func(t *testing.T) {
		bigger := podlife.Resources{CPULimit: 400, CPURequest: 400, MemoryLimit: 96 * mi}
		if err := pod.Resize(ctx, "inplace", bigger); err != nil {
			t.Fatalf("Resize: %v", err)
		}
		if got, w := values("inplace"), want(40000, 409, 16, 96*mi); strings.Join(got, " ") != strings.Join(w, " ") {
			t.Errorf("inplace cgroup after = %v, want %v", got, w)
		}
		st := status("inplace")
		if st.RestartCount != 0 || st.AllocatedResources != bigger || st.Resources == nil || *st.Resources != bigger {
			t.Errorf("inplace status = restarts %d, resources %+v / %+v; want 0, %+v", st.RestartCount, st.AllocatedResources, st.Resources, bigger)
		}
	})

	t.Run("restart", func(t *testing.T) {
		more := podlife.Resources{CPULimit: 200, CPURequest: 200, MemoryLimit: 128 * mi}
		if err := pod.Resize(ctx, "restarts", more); err != nil {
			t.Fatalf("Resize: %v", err)
		}
		st, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool {
			for _, c := range s.ContainerStatuses {
				if c.Name == "restarts" {
					return c.RestartCount == 1 && c.State.Running != nil
				}
			}
			return false
		})
		if err != nil {
			t.Fatalf("not restarted: %+v (%v)", st, err)
		}
		if got, w := values("restarts"), want(20000, 204, 8, 128*mi); strings.Join(got, " ") != strings.Join(w, " ") {
			t.Errorf("restarts cgroup after = %v, want %v", got, w)
		}
		if c := status("restarts"); c.Resources == nil || *c.Resources != more {
			t.Errorf("restarts status resources = %+v, want %+v", c.Resources, more)
		}
	})

	t.Run("refused", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			res   podlife.Resources
			field string
		}{
			{"QoS class", podlife.Resources{CPULimit: 400, CPURequest: 100, MemoryLimit: 96 * mi}, "Pod QOS Class may not change"},
			{"limit removed", podlife.Resources{CPURequest: 400, MemoryLimit: 96 * mi}, "spec.containers[0].resources.limits[cpu]"},
		} {
			err := pod.Resize(ctx, "inplace", tc.res)
			var verr *podlife.ValidationError
			if !errors.As(err, &verr) || !strings.Contains(err.Error(), tc.field) {
				t.Errorf("%s: Resize = %v, want a ValidationError naming %q", tc.name, err, tc.field)
			}
		}
		below := podlife.Resources{CPULimit: 400, CPURequest: 400, MemoryLimit: 16 * mi}
		if err := pod.Resize(ctx, "inplace", below); !errors.Is(err, podlife.ErrResizeNotNow) {
			t.Errorf("memory limit below usage: Resize = %v, want ErrResizeNotNow", err)
		}
		if got := values("inplace"); got[2] != strconv.Itoa(96*mi) {
			t.Errorf("inplace memory limit after the refusals = %s, want 96 MiB", got[2])
		}
	})

	t.Run("adopted as resized", func(t *testing.T) {
		if err := first.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		// The spec as started is not what runs any more.
		_, err := h.rt.Adopt(ctx, spec)
		var sc *podlife.SpecChangedError
		if !errors.As(err, &sc) || strings.Join(sc.Fields, " ") != "containers[inplace].resources containers[restarts].resources" {
			t.Fatalf("Adopt with the spec as started: %v, want a *SpecChangedError naming both containers' resources", err)
		}
		resized := spec
		resized.Containers = slices.Clone(spec.Containers)
		resized.Containers[0].Resources = podlife.Resources{CPULimit: 400, CPURequest: 400, MemoryLimit: 96 * mi}
		resized.Containers[1].Resources = podlife.Resources{CPULimit: 200, CPURequest: 200, MemoryLimit: 128 * mi}
		adopted, err := h.rt.Adopt(ctx, resized)
		if err != nil {
			t.Fatalf("Adopt with the spec as resized: %v", err)
		}
		pod = adopted
		for i, c := range adopted.Status().ContainerStatuses {
			if want := resized.Containers[i].Resources; c.AllocatedResources != want || c.RestartCount != i {
				t.Errorf("%s after adoption: resources %+v, restarts %d; want %+v, %d", c.Name, c.AllocatedResources, c.RestartCount, want, i)
			}
		}
	})
}
