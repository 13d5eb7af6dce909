package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/pkg/namespaces"
	statsv1alpha1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
)

// TestNodeStats: read through the API server's node proxy, as metrics-server and kubectl top
// do, the Summary API and /metrics/resource report what the containers really do: one that
// burns a core uses well over 0.3 core (generous: this 2-core machine is shared), one that
// wrote 64 MiB into a Memory-medium emptyDir has a working set of at least that; the node's
// own CPU and memory are there too.
//
// The API server proxies to no loopback address, so this node serves the kubelet API on an
// address of the test's own 10.A.250.0/24, added to the loopback interface for the test (the
// traffic stays on the host).
func TestNodeStats(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test: -short")
	}
	ip := proxyableAddr(t)
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	tn := startNodeWith(t, "podlife.io/node=true:NoSchedule", "--node-ip", ip, "--listen", fmt.Sprintf("%s:%d", ip, port))
	ns := "e2e-stats-" + env.runID
	newNamespace(t, ns)
	manifest := fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: usage}
spec:
%s  terminationGracePeriodSeconds: 1
  containers:
  - name: burn
    image: %s
    command: [sh, -c, 'while :; do :; done']
  - name: mem
    image: %s
    command: [sh, -c, 'dd if=/dev/zero of=/cache/fill bs=1M count=64 && echo filled && exec sleep 3600']
    volumeMounts:
    - {name: cache, mountPath: /cache}
  volumes:
  - name: cache
    emptyDir: {medium: Memory}
`, scheduling(tn.name), testImage, testImage)
	mustKubectl(t, manifest, "-n", ns, "apply", "-f", "-")
	mustKubectl(t, "", "-n", ns, "wait", "--for=condition=Ready", "pod/usage", "--timeout=180s")
	waitFor(t, "the mem container's 64 MiB written", time.Minute, func() (bool, error) {
		out, err := kubectl(t, "", "-n", ns, "logs", "usage", "-c", "mem")
		return err == nil && strings.Contains(out, "filled"), fmt.Errorf("%q %v", out, err)
	})
	uid := strings.TrimSpace(mustKubectl(t, "", "-n", ns, "get", "pod", "usage", "-o", "jsonpath={.metadata.uid}"))
	base := "/api/v1/nodes/" + tn.name + "/proxy"

	// The Summary. The burner's CPU is checked against what its process really got, read
	// from its /proc/<pid>/stat around the requests: the machine is shared, and under a heavy
	// load a loop gets far less than a core. The rate needs two samples a second or more
	// apart: the first request gives none.
	pid := containerPID(t, tn, ns, "usage", "burn")
	summary := func() (*statsv1alpha1.Summary, *statsv1alpha1.PodStats) {
		t.Helper()
		var sum statsv1alpha1.Summary
		if err := json.Unmarshal([]byte(mustKubectl(t, "", "get", "--raw", base+"/stats/summary")), &sum); err != nil {
			t.Fatal(err)
		}
		for i := range sum.Pods {
			if sum.Pods[i].PodRef.Namespace == ns && sum.Pods[i].PodRef.Name == "usage" {
				return &sum, &sum.Pods[i]
			}
		}
		t.Fatalf("no pod %s/usage in the summary: %+v", ns, sum)
		return nil, nil
	}
	t0, p0 := time.Now(), procCPU(t, pid)
	_, pod1 := summary()
	t1, p1 := time.Now(), procCPU(t, pid)
	time.Sleep(3 * time.Second) // the measurement itself, not a wait for something
	t2, p2 := time.Now(), procCPU(t, pid)
	sum2, pod := summary()
	t3, p3 := time.Now(), procCPU(t, pid)
	b1, burn := container(pod1, "burn"), container(pod, "burn")
	if b1 == nil || burn == nil || b1.CPU == nil || burn.CPU == nil || b1.CPU.UsageCoreNanoSeconds == nil ||
		burn.CPU.UsageCoreNanoSeconds == nil || burn.CPU.UsageNanoCores == nil {
		t.Fatalf("burn's CPU: %+v then %+v, want cumulative times and a rate", b1, burn)
	}
	// The cumulative time is the process's (ticks of 10 ms: a slack of 0.1 s and 10%).
	c1, c2 := time.Duration(*b1.CPU.UsageCoreNanoSeconds), time.Duration(*burn.CPU.UsageCoreNanoSeconds)
	if c1 < p0-p0/10-100*time.Millisecond || c1 > p1+p1/10+100*time.Millisecond ||
		c2 < p2-p2/10-100*time.Millisecond || c2 > p3+p3/10+100*time.Millisecond {
		t.Errorf("burn's cumulative CPU %v then %v, its process's %v..%v then %v..%v", c1, c2, p0, p1, p2, p3)
	}
	// The rate: about what the process got between the two requests, and about a core if it
	// got that much.
	cores := float64(*burn.CPU.UsageNanoCores) / 1e9
	lo, hi := (p2-p1).Seconds()/t3.Sub(t0).Seconds(), (p3-p0).Seconds()/t2.Sub(t1).Seconds()
	t.Logf("burn: %.2f cores reported; its process got %.2f to %.2f cores", cores, lo, hi)
	if cores < min(0.3, lo*0.7) || cores > hi*1.3+0.05 || cores > 1.5 {
		t.Errorf("burn uses %.2f cores, its process got %.2f to %.2f (want about one core, over 0.3, if the machine gives it)", cores, lo, hi)
	}
	sum := *sum2
	if pod.PodRef.UID != uid || pod.StartTime.IsZero() {
		t.Errorf("podRef %+v start %v: want UID %s and a start time", pod.PodRef, pod.StartTime, uid)
	}
	mem := container(pod, "mem")
	if mem == nil {
		t.Fatalf("containers %+v: want burn and mem", pod.Containers)
	}
	if burn.StartTime.IsZero() {
		t.Errorf("burn: no start time")
	}
	if mem.Memory == nil || mem.Memory.WorkingSetBytes == nil || *mem.Memory.WorkingSetBytes < 64<<20 {
		t.Errorf("mem: memory %+v: want a working set of 64 MiB or more", mem.Memory)
	} else if mem.Memory.UsageBytes == nil || *mem.Memory.UsageBytes < *mem.Memory.WorkingSetBytes {
		t.Errorf("mem: usage %v below the working set %d", mem.Memory.UsageBytes, *mem.Memory.WorkingSetBytes)
	}
	if pod.CPU == nil || pod.CPU.UsageCoreNanoSeconds == nil || pod.Memory == nil || pod.Memory.WorkingSetBytes == nil ||
		*pod.Memory.WorkingSetBytes < 64<<20 {
		t.Errorf("pod CPU %+v memory %+v: want the containers' sums", pod.CPU, pod.Memory)
	}
	if pod.Network == nil || pod.Network.Name != "eth0" || pod.Network.RxBytes == nil {
		t.Errorf("pod network %+v: want eth0's counters", pod.Network)
	}
	if pod.ProcessStats == nil || pod.ProcessStats.ProcessCount == nil || *pod.ProcessStats.ProcessCount < 2 {
		t.Errorf("process stats %+v: want 2 or more", pod.ProcessStats)
	}
	if pod.EphemeralStorage == nil || pod.EphemeralStorage.UsedBytes == nil {
		t.Errorf("ephemeral storage %+v: want the logs' and volumes' use", pod.EphemeralStorage)
	}
	n := sum.Node
	if n.NodeName != tn.name || n.CPU == nil || n.CPU.UsageCoreNanoSeconds == nil || n.Memory == nil ||
		n.Memory.WorkingSetBytes == nil || *n.Memory.WorkingSetBytes < 64<<20 || n.Fs == nil || n.StartTime.IsZero() {
		t.Errorf("node stats %+v: want its name, CPU, memory, filesystem and boot time", n)
	}

	// /metrics/resource: the kubelet's names and labels, the same values.
	out := mustKubectl(t, "", "get", "--raw", base+"/metrics/resource")
	l := fmt.Sprintf(`{container="%%s",namespace="%s",pod="usage"}`, ns)
	if v := metricValue(out, "container_cpu_usage_seconds_total"+fmt.Sprintf(l, "burn")); v < 0.1 {
		t.Errorf("container_cpu_usage_seconds_total of burn = %v, want its CPU time:\n%s", v, out)
	}
	if v := metricValue(out, "container_memory_working_set_bytes"+fmt.Sprintf(l, "mem")); v < 64<<20 {
		t.Errorf("container_memory_working_set_bytes of mem = %v, want 64 MiB or more:\n%s", v, out)
	}
	if v := metricValue(out, "container_start_time_seconds"+fmt.Sprintf(l, "mem")); v < float64(time.Now().Add(-time.Hour).Unix()) {
		t.Errorf("container_start_time_seconds of mem = %v:\n%s", v, out)
	}
	pl := fmt.Sprintf(`{namespace="%s",pod="usage"}`, ns)
	if v := metricValue(out, "pod_memory_working_set_bytes"+pl); v < 64<<20 {
		t.Errorf("pod_memory_working_set_bytes = %v:\n%s", v, out)
	}
	if metricValue(out, "pod_cpu_usage_seconds_total"+pl) <= 0 || metricValue(out, "node_cpu_usage_seconds_total") <= 0 ||
		metricValue(out, "node_memory_working_set_bytes") <= 0 || metricValue(out, "resource_scrape_error") != 0 {
		t.Errorf("pod and node series or resource_scrape_error missing:\n%s", out)
	}
}

// proxyableAddr adds an address of the test's own range to the loopback interface, removed
// when the test ends, and returns it.
func proxyableAddr(t *testing.T) string {
	t.Helper()
	ip := fmt.Sprintf("10.%d.250.1", env.subnetA)
	if out, err := exec.Command("ip", "addr", "add", ip+"/32", "dev", "lo").CombinedOutput(); err != nil {
		t.Fatalf("ip addr add %s: %v: %s", ip, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("ip", "addr", "del", ip+"/32", "dev", "lo").CombinedOutput(); err != nil {
			t.Errorf("ip addr del %s: %v: %s", ip, err, out)
		}
	})
	return ip
}

// containerPID returns the host PID of the container's process, found through containerd
// by the container ID of the pod's status.
func containerPID(t *testing.T, tn *testNode, ns, pod, name string) int {
	t.Helper()
	id := ""
	for _, cs := range getPod(t, ns, pod).Status.ContainerStatuses {
		if cs.Name == name {
			id = strings.TrimPrefix(cs.ContainerID, "containerd://")
		}
	}
	ctx := namespaces.WithNamespace(context.Background(), tn.ns)
	c, err := env.client.LoadContainer(ctx, id)
	if err != nil {
		t.Fatalf("container %s (%q): %v", name, id, err)
	}
	task, err := c.Task(ctx, nil)
	if err != nil {
		t.Fatalf("container %s: task: %v", name, err)
	}
	return int(task.Pid())
}

// procCPU is the CPU time (user and system) of process pid, from /proc/<pid>/stat.
func procCPU(t *testing.T, pid int) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3, state; utime and stime are 14, 15
	if i < 0 || len(f) < 13 {
		t.Fatalf("/proc/%d/stat: %q", pid, b)
	}
	var ticks int64
	for _, v := range f[11:13] {
		n, _ := strconv.ParseInt(v, 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

// container returns the named container's stats.
func container(p *statsv1alpha1.PodStats, name string) *statsv1alpha1.ContainerStats {
	for i := range p.Containers {
		if p.Containers[i].Name == name {
			return &p.Containers[i]
		}
	}
	return nil
}

// metricValue is the value of the series (name and labels as the text format prints them)
// in a Prometheus text exposition, -1 if absent.
func metricValue(text, series string) float64 {
	for line := range strings.SplitSeq(text, "\n") {
		rest, ok := strings.CutPrefix(line, series+" ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
		if err != nil {
			return -1
		}
		return v
	}
	return -1
}
