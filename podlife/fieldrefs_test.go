package podlife_test

import (
	"bufio"
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
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
		c, err := pod.Container(container)
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.Exec(ctx, []string{"sh", "-c", cmd})
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
	const gate = podlife.ConditionType("example.com/load-balancer")
	pod, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "gated", ReadinessGates: []podlife.ConditionType{gate},
		TerminationGracePeriod: ptr(2 * time.Second),
		Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage,
			Command: []string{"/bin/sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"}}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	containersReady := func(s podlife.PodStatus) bool { return s.Condition(podlife.ContainersReady).Status == "True" }
	st, err := pod.WaitFor(ctx, containersReady)
	if err != nil {
		t.Fatalf("containers never ready: %v", err)
	}
	checkReady := func(st podlife.PodStatus, status, reason, msg string) {
		t.Helper()
		c := st.Condition(podlife.PodReady)
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

	if err := pod.SetCondition(gate, podlife.ConditionFalse, "Pending", "no backend yet"); err != nil {
		t.Fatal(err)
	}
	st = pod.Status()
	checkReady(st, "False", "ReadinessGatesNotReady", `the status of pod readiness gate "example.com/load-balancer" is not "True", but False`)
	if c := st.Condition(gate); c.Status != "False" || c.Reason != "Pending" || c.Message != "no backend yet" {
		t.Errorf("gate condition %+v", c)
	}

	done := make(chan error, 1)
	go func() { done <- pod.WaitReady(ctx) }()
	if err := pod.SetCondition(gate, podlife.ConditionTrue, "", ""); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("WaitReady after the gate went True: %v", err)
	}
	checkReady(pod.Status(), "True", "", "")

	// The conditions podlife computes are its own; a malformed type or status is refused.
	for _, bad := range []struct {
		t      podlife.ConditionType
		status string
	}{{podlife.PodReady, "True"}, {"not a/qualified/name", "True"}, {gate, "yes"}} {
		if err := pod.SetCondition(bad.t, bad.status, "", ""); err == nil {
			t.Errorf("SetCondition(%q, %q) = nil, want an error", bad.t, bad.status)
		}
	}
	checkReady(pod.Status(), "True", "", "")
}
