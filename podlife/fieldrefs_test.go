package podlife_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/conditions"
	"github.com/podlife/podlife/podlife/kube"
)

// resourceRefManifest has a limited container "app" and an unlimited one "free", both reading
// their resources through env resourceFieldRef, and a downwardAPI volume of app's.
const resourceRefManifest = `apiVersion: v1
kind: Pod
metadata: {name: resource-refs}
spec:
  terminationGracePeriodSeconds: 2
  containers:
  - name: app
    image: busybox
    command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 1; done"]
    resources:
      limits: {cpu: 500m, memory: 64Mi}
      requests: {cpu: 250m, memory: 32Mi}
    env:
    - {name: MEM_LIMIT_MI, valueFrom: {resourceFieldRef: {resource: limits.memory, divisor: 1Mi}}}
    - {name: CPU_REQUEST_M, valueFrom: {resourceFieldRef: {resource: requests.cpu, divisor: 1m}}}
    - {name: CPU_LIMIT, valueFrom: {resourceFieldRef: {resource: limits.cpu}}}
    volumeMounts: [{name: info, mountPath: /etc/info}]
  - name: free
    image: busybox
    command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 1; done"]
    env:
    - {name: CPU_LIMIT, valueFrom: {resourceFieldRef: {resource: limits.cpu}}}
    - {name: MEM_LIMIT, valueFrom: {resourceFieldRef: {resource: limits.memory}}}
  volumes:
  - name: info
    downwardAPI:
      items:
      - {path: mem_limit, resourceFieldRef: {containerName: app, resource: limits.memory, divisor: 1Mi}}
      - {path: cpu_request, resourceFieldRef: {containerName: app, resource: requests.cpu, divisor: 1m}}
      - {path: free_mem, resourceFieldRef: {containerName: free, resource: limits.memory}}
`

// TestResourceFieldRefInside: the resources a manifest passes through env resourceFieldRef
// and a downwardAPI volume are what the containers read, with divisors; an unlimited
// container reads the host's CPUs and memory, as under a kubelet its node's allocatable.
func TestResourceFieldRefInside(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := kube.Load(ctx, kube.Options{}, strings.NewReader(resourceRefManifest))
	if err != nil {
		t.Fatal(err)
	}
	spec := res.Pods[0].Spec
	for i := range spec.Containers {
		spec.Containers[i].Image, spec.Containers[i].ImagePullPolicy = testImage, ""
	}
	pod, err := h.rt.Run(ctx, spec)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	hostMem := strconv.FormatInt(memTotal(t), 10)
	read := func(container, cmd string) string {
		t.Helper()
		_, err := pod.Container(container)
		if err != nil {
			t.Fatal(err)
		}
		r, err := execOutput(ctx, pod, container, []string{"sh", "-c", cmd})
		if err != nil || r.ExitCode != 0 {
			t.Fatalf("%s: exec %q: %v (exit %d, %q)", container, cmd, err, r.ExitCode, r.Output)
		}
		return strings.TrimSpace(string(r.Output))
	}
	for _, tc := range []struct{ container, cmd, want string }{
		{"app", "echo $MEM_LIMIT_MI", "64"},
		{"app", "echo $CPU_REQUEST_M", "250"},
		{"app", "echo $CPU_LIMIT", "1"}, // 500m rounded up
		{"app", "cat /etc/info/mem_limit", "64"},
		{"app", "cat /etc/info/cpu_request", "250"},
		{"app", "cat /etc/info/free_mem", hostMem},
		{"free", "echo $CPU_LIMIT", strconv.Itoa(runtime.NumCPU())},
		{"free", "echo $MEM_LIMIT", hostMem},
	} {
		if got := read(tc.container, tc.cmd); got != tc.want {
			t.Errorf("%s: %s = %q, want %q", tc.container, tc.cmd, got, tc.want)
		}
	}
}

// memTotal is the host's memory in bytes (/proc/meminfo).
func memTotal(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb * 1024
		}
	}
	t.Fatal("no MemTotal in /proc/meminfo")
	return 0
}

// TestReadinessGates: a pod with a readiness gate stays not Ready, with the kubelet's reason
// and message, while its containers are ready, until the gate's condition is set True.
func TestReadinessGates(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const gate = conditions.Type("example.com/load-balancer")
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "gated", ReadinessGates: []conditions.Type{gate},
		TerminationGracePeriod: ptr(2 * time.Second),
		Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage,
			Command: []string{"/bin/sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"}}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	containersReady := func(s podlife.PodStatus) bool { return s.Condition(conditions.ContainersReady).Status == "True" }
	st, err := pod.WaitFor(ctx, containersReady)
	if err != nil {
		t.Fatalf("containers never ready: %v", err)
	}
	checkReady := func(st podlife.PodStatus, status conditions.Status, reason, msg string) {
		t.Helper()
		c := st.Condition(conditions.PodReady)
		if c.Status != status || c.Reason != reason || c.Message != msg {
			t.Errorf("Ready = %s/%q/%q, want %s/%q/%q", c.Status, c.Reason, c.Message, status, reason, msg)
		}
	}
	checkReady(st, "False", "ReadinessGatesNotReady", `corresponding condition of pod readiness gate "example.com/load-balancer" does not exist.`)
	waitCtx, waitCancel := context.WithTimeout(ctx, 200*time.Millisecond)
	if err := pod.WaitReady(waitCtx); err == nil {
		t.Error("WaitReady returned with the gate's condition missing")
	}
	waitCancel()

	if err := pod.SetCondition(ctx, gate, conditions.False, "Pending", "no backend yet"); err != nil {
		t.Fatal(err)
	}
	st = pod.Status()
	checkReady(st, "False", "ReadinessGatesNotReady", `the status of pod readiness gate "example.com/load-balancer" is not "True", but False`)
	if c := st.Condition(gate); c.Status != "False" || c.Reason != "Pending" || c.Message != "no backend yet" {
		t.Errorf("gate condition %+v", c)
	}

	// Another process (here another Runtime on the state directory) sets it through the
	// pod's manager, as `podlife condition` does.
	other := h.another(t)
	done := make(chan error, 1)
	go func() { done <- pod.WaitReady(ctx) }()
	if err := podOf(t, other, "gated").SetCondition(ctx, gate, conditions.True, "Configured", ""); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("WaitReady after the gate went True: %v", err)
	}
	checkReady(pod.Status(), "True", "", "")
	if c := pod.Status().Condition(gate); c.Status != "True" || c.Reason != "Configured" {
		t.Errorf("gate condition %+v, want True/Configured", c)
	}
	if err := podOf(t, other, "gated").SetCondition(ctx, conditions.PodReady, "False", "", ""); !errors.Is(err, podlife.ErrInvalidSpec) {
		t.Errorf("another runtime setting Ready: %v, want ErrInvalidSpec", err)
	}
	if _, err := other.Pod("nosuchpod"); !errors.Is(err, podlife.ErrNotFound) {
		t.Errorf("handle on a missing pod: %v, want ErrNotFound", err)
	}

	// The conditions podlife computes are its own; a malformed type or status is refused.
	for _, bad := range []struct {
		t      conditions.Type
		status conditions.Status
	}{{conditions.PodReady, "True"}, {"not a/qualified/name", "True"}, {gate, "yes"}} {
		if err := pod.SetCondition(ctx, bad.t, bad.status, "", ""); err == nil {
			t.Errorf("SetCondition(%q, %q) = nil, want an error", bad.t, bad.status)
		}
	}
	checkReady(pod.Status(), "True", "", "")
}

// podResourcesManifest has pod-level limits, a container without limits of its own and one
// with a lower memory limit.
const podResourcesManifest = `apiVersion: v1
kind: Pod
metadata: {name: pod-resources}
spec:
  terminationGracePeriodSeconds: 2
  resources:
    limits: {cpu: 500m, memory: 96Mi}
    requests: {cpu: 250m}
  containers:
  - name: app
    image: busybox
    command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 1; done"]
    env:
    - {name: MEM_LIMIT_MI, valueFrom: {resourceFieldRef: {resource: limits.memory, divisor: 1Mi}}}
    - {name: CPU_LIMIT_M, valueFrom: {resourceFieldRef: {resource: limits.cpu, divisor: 1m}}}
  - name: capped
    image: busybox
    command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 1; done"]
    resources:
      limits: {memory: 32Mi}
`

// TestPodLevelResources: pod-level resources make a pod cgroup with the pod's limits, the
// containers' cgroups under it (a container's own limit still applies within); a container
// without limits is held by the pod's (a 150 MiB allocation is OOM-killed under the 96 MiB
// pod limit, a 16 MiB one is not) and reads the pod's limits through the downward API; the
// pod cgroup is gone once the pod is removed. It covers cgroup v1 (with a hybrid layout) and
// the unified v2 hierarchy (make test-vm), whichever the host has.
func TestPodLevelResources(t *testing.T) {
	h := newHarness(t)
	v2 := cgroupV2(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := kube.Load(ctx, kube.Options{}, strings.NewReader(podResourcesManifest))
	if err != nil {
		t.Fatal(err)
	}
	spec := res.Pods[0].Spec
	for i := range spec.Containers {
		spec.Containers[i].Image, spec.Containers[i].ImagePullPolicy = testImage, ""
	}
	pod, err := h.rt.Run(ctx, spec)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	podCg := filepath.Join(h.ns, "pod"+pod.UID())
	hostFile := func(parts ...string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(append([]string{"/sys/fs/cgroup"}, parts...)...))
		if err != nil {
			t.Fatalf("cgroup file: %v", err)
		}
		return strings.TrimSpace(string(b))
	}
	want := []struct{ hier, file, want string }{
		{"memory", "memory.limit_in_bytes", strconv.Itoa(96 << 20)},
		{"cpu", "cpu.cfs_quota_us", "50000"},
		{"cpu", "cpu.cfs_period_us", "100000"},
		{"cpu", "cpu.shares", "256"},
	}
	if v2 { // one hierarchy; 256 shares are weight 10 (runc's conversion)
		want = []struct{ hier, file, want string }{{"", "memory.max", strconv.Itoa(96 << 20)}, {"", "cpu.max", "50000 100000"}, {"", "cpu.weight", "10"}}
	}
	for _, f := range want {
		if got := hostFile(f.hier, podCg, f.file); got != f.want {
			t.Errorf("pod cgroup %s = %s, want %s", f.file, got, f.want)
		}
	}
	exec := func(container, cmd string) (string, int) {
		t.Helper()
		_, err := pod.Container(container)
		if err != nil {
			t.Fatal(err)
		}
		r, err := execOutput(ctx, pod, container, []string{"sh", "-c", cmd})
		if err != nil {
			t.Fatalf("%s: exec %q: %v", container, cmd, err)
		}
		return strings.TrimSpace(string(r.Output)), r.ExitCode
	}
	for _, name := range []string{"app", "capped"} {
		c, _ := pod.Container(name)
		if v2 {
			// From the host (a container on v2 has its own cgroup namespace): the container's
			// cgroup is under the pod's and holds its process.
			if procs := hostFile(podCg, c.ID(), "cgroup.procs"); procs == "" {
				t.Errorf("%s: no process in /%s", name, filepath.Join(podCg, c.ID()))
			}
			continue
		}
		// From inside: the container's memory cgroup is under the pod's.
		if got, _ := exec(name, "grep ':memory:' /proc/self/cgroup"); !strings.HasSuffix(got, ":memory:/"+filepath.Join(podCg, c.ID())) {
			t.Errorf("%s: memory cgroup %q, want under /%s", name, got, podCg)
		}
	}
	capped, _ := pod.Container("capped")
	if v2 {
		if got := hostFile(podCg, capped.ID(), "memory.max"); got != strconv.Itoa(32<<20) {
			t.Errorf("capped container's memory.max = %s, want 32 MiB", got)
		}
	} else if got := hostFile("memory", podCg, capped.ID(), "memory.limit_in_bytes"); got != strconv.Itoa(32<<20) {
		t.Errorf("capped container's memory.limit_in_bytes = %s, want 32 MiB", got)
	}
	if got, _ := exec("app", "echo $MEM_LIMIT_MI $CPU_LIMIT_M"); got != "96 500" {
		t.Errorf("app's downward API limits %q, want the pod's: \"96 500\"", got)
	}
	if out, code := exec("app", "dd if=/dev/zero of=/dev/null bs=16M count=1 2>&1"); code != 0 {
		t.Errorf("a 16 MiB allocation under the 96 MiB pod limit: exit %d, %q", code, out)
	}
	if out, code := exec("app", "dd if=/dev/zero of=/dev/null bs=150M count=1 2>&1"); code != 137 {
		t.Errorf("a 150 MiB allocation under the 96 MiB pod limit: exit %d, %q; want 137 (OOM-killed)", code, out)
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	for _, hier := range []string{"", "memory", "cpu", "pids"} {
		if _, err := os.Stat(filepath.Join("/sys/fs/cgroup", hier, podCg)); !os.IsNotExist(err) {
			t.Errorf("pod cgroup left in /sys/fs/cgroup/%s after Remove: %v", hier, err)
		}
	}
}

// cgroupV2 reports whether /sys/fs/cgroup is the unified cgroup v2 hierarchy; on a v1 host
// (hybrid or not) it must have the v1 memory hierarchy, else the test is skipped.
func cgroupV2(t *testing.T) bool {
	t.Helper()
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		return true
	}
	if _, err := os.Stat("/sys/fs/cgroup/memory"); err != nil {
		t.Skip("neither the unified cgroup v2 hierarchy nor the v1 memory controller at /sys/fs/cgroup")
	}
	return false
}

// TestPodCgroupOfUnmanagedPodRemoved: a pod with pod-level resources whose manager is gone is
// removed whole by another Runtime, its pod cgroup included; its conditions cannot be set
// (nothing manages it).
func TestPodCgroupOfUnmanagedPodRemoved(t *testing.T) {
	h := newHarness(t)
	v2 := cgroupV2(t)
	gone := h.another(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const name = "orphan-cg"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := removePod(ctx, h.rt, name); err != nil && !errors.Is(err, podlife.ErrNotFound) {
			t.Errorf("cleanup: Pod.Remove: %v", err)
		}
	})
	pod, err := gone.Run(ctx, podlife.PodSpec{
		Name: name, Resources: podlife.Resources{MemoryLimit: 64 << 20, CPULimit: 300},
		ReadinessGates: []conditions.Type{"example.com/x"},
		Containers:     []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	podCg := filepath.Join(h.ns, "pod"+pod.UID())
	if _, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool { r, n := s.ReadyCount(); return r == n }); err != nil {
		t.Fatal(err)
	}
	limitFile := filepath.Join("/sys/fs/cgroup/memory", podCg, "memory.limit_in_bytes")
	if v2 {
		limitFile = filepath.Join("/sys/fs/cgroup", podCg, "memory.max")
	}
	if b, err := os.ReadFile(limitFile); err != nil || strings.TrimSpace(string(b)) != strconv.Itoa(64<<20) {
		t.Fatalf("pod cgroup memory limit %q, %v", b, err)
	}
	if err := gone.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := podOf(t, h.rt, name).SetCondition(ctx, "example.com/x", conditions.True, "", ""); !errors.Is(err, podlife.ErrNotFound) {
		t.Errorf("SetCondition on an unmanaged pod: %v, want ErrNotFound", err)
	}
	if err := removePod(ctx, h.rt, name, podlife.WithGracePeriod(time.Second)); err != nil {
		t.Fatalf("Pod.Remove: %v", err)
	}
	hs, err := os.ReadDir("/sys/fs/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join("/sys/fs/cgroup", podCg)); !os.IsNotExist(err) {
		t.Errorf("pod cgroup left in /sys/fs/cgroup: %v", err)
	}
	for _, hier := range hs {
		if v2 && !hier.IsDir() { // the root cgroup's files
			continue
		}
		if _, err := os.Stat(filepath.Join("/sys/fs/cgroup", hier.Name(), podCg)); !os.IsNotExist(err) {
			t.Errorf("pod cgroup left in %s: %v", hier.Name(), err)
		}
	}
}
