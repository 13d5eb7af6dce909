package podlife_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
)

// What Usage reports is what the containers did: a container that burns CPU for a measured
// wall time used about that CPU time (no more than the wall time of one core), one that wrote
// 64 MiB to a tmpfs emptyDir has at least ~60 MiB of working set (tmpfs pages are charged to
// its memory cgroup and are not inactive file cache), and the pod's network counters grow with
// traffic sent to the pod IP. A handle of another Runtime (the pod's manager elsewhere) reads
// the same. Covered here on cgroup v1 (this host); the v2 decoding is covered by the fixture
// tests of package ctrd.
func TestPodUsageMeasuresWhatContainersDo(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(3*time.Minute))
	defer cancel()
	const name = "usage"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), budget(time.Minute))
		defer cancel()
		if err := removePod(ctx, h.rt, name); err != nil && !errors.Is(err, podlife.ErrNotFound) {
			t.Errorf("cleanup: %v", err)
		}
	})
	spec := podlife.PodSpec{Name: name, TerminationGracePeriod: ptr(time.Second),
		Volumes: []podlife.Volume{{Name: "mem", EmptyDir: &podlife.EmptyDirVolume{Medium: podlife.MediumMemory}},
			{Name: "disk", EmptyDir: &podlife.EmptyDirVolume{}}},
		Containers: []podlife.ContainerSpec{
			{Name: "burn", Image: testImage, Command: []string{"/bin/sh", "-c", "while :; do :; done"}},
			{Name: "mem", Image: testImage, VolumeMounts: []podlife.VolumeMount{{Name: "mem", MountPath: "/mem"}, {Name: "disk", MountPath: "/disk"}},
				Command: []string{"/bin/sh", "-c", "dd if=/dev/zero of=/mem/x bs=1M count=64 2>/dev/null; " +
					"dd if=/dev/urandom of=/disk/y bs=1M count=8 2>/dev/null; dd if=/dev/urandom of=/layer bs=1M count=4 2>/dev/null; sync; echo written; touch /mem/done; " + loopForever}},
		}}
	start := time.Now()
	pod, err := h.rt.Run(ctx, spec)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	st, err := pod.WaitFor(ctx, func(st podlife.PodStatus) bool { return every(st.ContainerStatuses, runningReady) })
	if err != nil {
		t.Fatalf("containers never ready: %v", err)
	}

	// Memory: once the file is written.
	for {
		res, err := execOutput(ctx, pod, "mem", []string{"test", "-f", "/mem/done"})
		if err == nil && res.ExitCode == 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the 64 MiB file never written: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	u1, err := pod.Usage(ctx)
	if err != nil {
		t.Fatalf("Usage: %v", err)
	}
	if len(u1.Containers) != 2 || u1.Containers[0].Name != "burn" || u1.Containers[1].Name != "mem" {
		t.Fatalf("containers %+v, want burn and mem", u1.Containers)
	}
	mem, _ := u1.Container("mem")
	if mem.MemoryWorkingSet < 60<<20 || mem.MemoryUsage < mem.MemoryWorkingSet {
		t.Errorf("mem: working set %d, usage %d: want at least 60 MiB", mem.MemoryWorkingSet, mem.MemoryUsage)
	}
	if mem.Processes < 1 || mem.OOMKills != 0 {
		t.Errorf("mem: %d processes, %d OOM kills", mem.Processes, mem.OOMKills)
	}

	// Disk: the 8 MiB file of the disk emptyDir, not the 64 MiB of the tmpfs one; the log line.
	du, err := pod.DiskUsage(ctx)
	if err != nil {
		t.Fatalf("DiskUsage: %v", err)
	}
	if du.Volumes < 8<<20 || du.Volumes > 16<<20 || du.Logs == 0 {
		t.Errorf("disk usage %+v, want 8 MiB of volumes (not the tmpfs's 64) and some logs", du)
	}
	if du.WritableLayers < 4<<20 || du.WritableLayers > 64<<20 {
		t.Errorf("writable layers %d bytes, want the 4 MiB written to the root filesystem (and not the volumes')", du.WritableLayers)
	}

	// CPU: over a measured wall time.
	const window = 3 * time.Second
	time.Sleep(window) // the measurement itself, not a wait for something
	u2, err := pod.Usage(ctx)
	if err != nil {
		t.Fatalf("Usage: %v", err)
	}
	b1, _ := u1.Container("burn")
	b2, _ := u2.Container("burn")
	cores, ok := CPURateOK(t, b1, b2)
	// The loop wants one core; the machine is shared (2 cores, other work), so a tenth is required.
	if !ok || cores < 0.1 || cores > 1.1 {
		t.Errorf("burn: %.2f cores over %v (ok %v), want between 0.1 and 1.1", cores, window, ok)
	}
	if elapsed := time.Since(start); b2.CPU > elapsed+elapsed/10 {
		t.Errorf("burn: %v of CPU in %v of life", b2.CPU, elapsed)
	}
	// Over the window, once mem's setup (its writes, seconds of CPU on a slow host) is done: the
	// busy loop's CPU is burn's, not mem's.
	m1, _ := u1.Container("mem")
	if m2, _ := u2.Container("mem"); m2.CPU-m1.CPU > (b2.CPU-b1.CPU)/2 {
		t.Errorf("over %v, mem used %v of CPU, burn %v", window, m2.CPU-m1.CPU, b2.CPU-b1.CPU)
	}

	// Network: connections to a closed port of the pod IP (SYN in, RST out).
	if u2.Network == nil {
		t.Fatal("no network usage")
	}
	for i := 0; i < 20; i++ {
		c, err := net.DialTimeout("tcp", net.JoinHostPort(st.PodIP.String(), "9"), 2*time.Second)
		if err == nil {
			c.Close()
		}
	}
	u3, err := pod.Usage(ctx)
	if err != nil {
		t.Fatalf("Usage: %v", err)
	}
	if u3.Network == nil || u3.Network.RxBytes < u2.Network.RxBytes+20*40 || u3.Network.TxBytes < u2.Network.TxBytes+20*40 {
		t.Errorf("network before %+v after %+v: want 20 SYNs in and 20 RSTs out more", u2.Network, u3.Network)
	}

	checkCollector(t, h.rt, name, u3)

	// The same pod in the Runtime-wide sample, which lists the containers once for all pods.
	all, err := h.rt.Usage(ctx)
	if err != nil {
		t.Fatalf("Runtime.Usage: %v", err)
	}
	var inAll *podlife.PodUsage
	for i := range all {
		if all[i].Name == name {
			inAll = &all[i]
		}
	}
	if inAll == nil || inAll.UID != pod.UID() || len(inAll.Containers) != 2 || inAll.Network == nil {
		t.Fatalf("Runtime.Usage: pod %q: %+v", name, inAll)
	}
	if b, _ := inAll.Container("burn"); b.CPU < b2.CPU || b.Attempt != b2.Attempt {
		t.Errorf("Runtime.Usage: burn %+v, after %+v", b, b2)
	}
	if m, _ := inAll.Container("mem"); m.MemoryWorkingSet < 60<<20 {
		t.Errorf("Runtime.Usage: mem working set %d, want at least 60 MiB", m.MemoryWorkingSet)
	}

	// The same from a handle of another Runtime: the pod's manager is elsewhere.
	other, err := h.another(t).Pod(name)
	if err != nil {
		t.Fatal(err)
	}
	u4, err := other.Usage(ctx)
	if err != nil {
		t.Fatalf("Usage from another Runtime: %v", err)
	}
	if b4, ok := u4.Container("burn"); !ok || b4.CPU < b2.CPU || u4.Network == nil {
		t.Errorf("from another Runtime: %+v", u4)
	}
	if _, err := h.rt.Pod("no-such-pod"); err == nil {
		t.Error("a pod that does not exist")
	}
}

// CPURateOK is podlife.CPURate, logged.
func CPURateOK(t *testing.T, a, b podlife.ContainerUsage) (float64, bool) {
	t.Helper()
	r, ok := podlife.CPURate(a, b)
	t.Logf("%s: %v -> %v of CPU in %v: %.3f cores", b.Name, a.CPU, b.CPU, b.Timestamp.Sub(a.Timestamp), r)
	return r, ok
}

// The sampling cost (docs/benchmarks.md): the CPU time that 100 samples of a 2-container pod
// cost this process, containerd and the pod's shim, per sample (USER_HZ ticks: 10 ms each). Logged, and bounded loosely
// (10 ms of CPU per sample) so that a regression of an order of magnitude fails.
func TestPodUsageSamplingCost(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	const name = "usage-cost"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), budget(time.Minute))
		defer cancel()
		if err := removePod(ctx, h.rt, name); err != nil && !errors.Is(err, podlife.ErrNotFound) {
			t.Errorf("cleanup: %v", err)
		}
	})
	pod, err := h.rt.Run(ctx, podlife.PodSpec{Name: name, TerminationGracePeriod: ptr(time.Second),
		Containers: []podlife.ContainerSpec{
			{Name: "a", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}},
			{Name: "b", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}},
		}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if _, err := pod.WaitFor(ctx, func(st podlife.PodStatus) bool { return every(st.ContainerStatuses, runningReady) }); err != nil {
		t.Fatal(err)
	}
	if _, err := pod.Usage(ctx); err != nil { // warm the connection
		t.Fatal(err)
	}
	const n = 100
	self0, ctrd0, shims0, wall0 := selfCPU(t), statCPU(env.daemon.PID()), shimCPU(h.ns), time.Now()
	for i := 0; i < n; i++ {
		u, err := pod.Usage(ctx)
		if err != nil || len(u.Containers) != 2 {
			t.Fatalf("Usage: %+v, %v", u, err)
		}
	}
	self, ctrd, shims, wall := selfCPU(t)-self0, statCPU(env.daemon.PID())-ctrd0, shimCPU(h.ns)-shims0, time.Since(wall0)
	per := (self + ctrd + shims) / n
	t.Logf("%d samples of a 2-container pod: %v wall; CPU %v here (the whole test process), %v containerd, %v shim: %v per sample",
		n, wall, self, ctrd, shims, per)
	if per > budget(10*time.Millisecond) {
		t.Errorf("a sample costs %v of CPU", per)
	}

	// The same with Runtime.Usage (every pod of the harness's state directory at once).
	self0, ctrd0, shims0, wall0 = selfCPU(t), statCPU(env.daemon.PID()), shimCPU(h.ns), time.Now()
	for i := 0; i < n; i++ {
		all, err := h.rt.Usage(ctx)
		if err != nil {
			t.Fatalf("Runtime.Usage: %v", err)
		}
		found := false
		for _, u := range all {
			found = found || (u.Name == name && len(u.Containers) == 2)
		}
		if !found {
			t.Fatalf("Runtime.Usage: %+v, no %q with 2 containers", all, name)
		}
	}
	self, ctrd, shims, wall = selfCPU(t)-self0, statCPU(env.daemon.PID())-ctrd0, shimCPU(h.ns)-shims0, time.Since(wall0)
	per = (self + ctrd + shims) / n
	t.Logf("%d Runtime.Usage samples: %v wall; CPU %v here, %v containerd, %v shim: %v per sample", n, wall, self, ctrd, shims, per)
	if per > budget(10*time.Millisecond) {
		t.Errorf("a Runtime.Usage sample costs %v of CPU", per)
	}
}

// selfCPU is this process's CPU time (user and system).
func selfCPU(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// shimCPU is the CPU time of the shims serving the containerd namespace ns.
func shimCPU(ns string) time.Duration {
	var total time.Duration
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(cmd), "\x00")
		if len(args) > 2 && strings.HasSuffix(args[0], "containerd-shim-runc-v2") && strings.Contains(string(cmd), "\x00"+ns+"\x00") {
			total += statCPU(p)
		}
	}
	return total
}

// statCPU is a process's utime + stime from /proc/<pid>/stat (0 if it is gone).
func statCPU(pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(data), ')')
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseUint(f[11], 10, 64)
	st, _ := strconv.ParseUint(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ
}
