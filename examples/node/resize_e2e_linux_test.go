package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestNodeResize resizes a running pod in place through the API server's resize subresource
// (`kubectl patch --subresource resize`, as the "Pod InPlace Resize Container" specs do): the
// container whose resizePolicy is NotRequired gets its new CPU limit in its cgroup without a
// restart, the one whose memory policy is RestartContainer is restarted once with its new
// memory limit; status.containerStatuses[].resources and allocatedResources report the new
// values, observedGeneration follows and no resize condition is left.
func TestNodeResize(t *testing.T) {
	tn := startNode(t)
	ns := "e2e-resize-" + env.runID
	newNamespace(t, ns)
	mustKubectl(t, fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: rs}
spec:
%s  terminationGracePeriodSeconds: 0
  containers:
  - name: inplace
    image: %s
    command: [sleep, "3600"]
    resources: {requests: {cpu: 100m, memory: 32Mi}, limits: {cpu: 200m, memory: 64Mi}}
  - name: restarts
    image: %s
    command: [sleep, "3600"]
    resources: {requests: {cpu: 100m, memory: 32Mi}, limits: {cpu: 200m, memory: 64Mi}}
    resizePolicy: [{resourceName: memory, restartPolicy: RestartContainer}]
`, scheduling(tn.name), testImage, testImage), "-n", ns, "apply", "-f", "-")
	mustKubectl(t, "", "-n", ns, "wait", "--for=condition=Ready", "pod/rs", "--timeout=120s")
	cgroup := func(container, v1, v2 string) string {
		out := mustKubectl(t, "", "-n", ns, "exec", "rs", "-c", container, "--", "sh", "-c",
			fmt.Sprintf("if [ -e /sys/fs/cgroup/cpu.max ]; then cat /sys/fs/cgroup/%s; else cat /sys/fs/cgroup/%s; fi", v2, v1))
		return strings.Fields(out)[0]
	}
	if got := cgroup("inplace", "cpu/cpu.cfs_quota_us", "cpu.max"); got != "20000" {
		t.Errorf("inplace CPU quota before = %s, want 20000", got)
	}
	mustKubectl(t, "", "-n", ns, "patch", "pod", "rs", "--subresource", "resize", "--type", "strategic", "-p",
		`{"spec":{"containers":[{"name":"inplace","resources":{"limits":{"cpu":"400m"}}},{"name":"restarts","resources":{"limits":{"memory":"96Mi"}}}]}}`)
	mustKubectl(t, "", "-n", ns, "wait", "--for=jsonpath={.status.containerStatuses[0].resources.limits.cpu}=400m", "pod/rs", "--timeout=120s")
	mustKubectl(t, "", "-n", ns, "wait", "--for=jsonpath={.status.containerStatuses[1].restartCount}=1", "pod/rs", "--timeout=120s")
	mustKubectl(t, "", "-n", ns, "wait", "--for=condition=Ready", "pod/rs", "--timeout=120s")
	got := mustKubectl(t, "", "-n", ns, "get", "pod", "rs", "-o", `jsonpath={.metadata.generation} {.status.observedGeneration} {.status.containerStatuses[0].restartCount} {.status.containerStatuses[1].resources.limits.memory} {.status.containerStatuses[0].allocatedResources.cpu} {.status.conditions[*].type}`)
	f := strings.Fields(got)
	if len(f) < 5 || f[0] != f[1] || f[2] != "0" || f[3] != "96Mi" || f[4] != "100m" || strings.Contains(got, "PodResize") {
		t.Errorf("status after the resize: %q; want observedGeneration = generation, inplace not restarted, restarts' memory limit 96Mi, inplace's allocated cpu 100m, no resize condition", got)
	}
	if got := cgroup("inplace", "cpu/cpu.cfs_quota_us", "cpu.max"); got != "40000" {
		t.Errorf("inplace CPU quota after = %s, want 40000", got)
	}
	if got := cgroup("restarts", "memory/memory.limit_in_bytes", "memory.max"); got != fmt.Sprint(96<<20) {
		t.Errorf("restarts memory limit after = %s, want %d", got, 96<<20)
	}
}
