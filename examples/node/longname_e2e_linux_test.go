package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestNodeConformanceNameAndSELinux: two causes of upstream [NodeConformance] failures.
//
// A pod whose name is longer than 63 characters (the API server allows a 253-character DNS
// subdomain; the termination-message specs use such names): on main the node refused it
// (ProviderFailed: metadata.name must be no more than 63 characters); now it runs, and its
// containers see the kubelet's hostname, the name cut to 63 characters with trailing '-'
// trimmed, and the full name in the downward API.
//
// A pod with seLinuxOptions at the pod and in its container, with an emptyDir and an fsGroup
// (the upstream EmptyDir and FSGroup specs): on main it was refused at
// spec.securityContext.seLinuxOptions; on this host without SELinux it runs as the kubelet
// runs it, with nothing applied, and the volume gets the fsGroup.
func TestNodeConformanceNameAndSELinux(t *testing.T) {
	tn := startNode(t)
	ns := "pln-" + env.runID + "-long"
	newNamespace(t, ns)

	// 75 characters; the 62nd and 63rd are '-', which the kubelet trims.
	long := "termination-message-container-with-a-name-longer-than-a-label--is-truncated"
	wantHost := "termination-message-container-with-a-name-longer-than-a-label"
	if len(long) <= 63 || len(wantHost) != 61 {
		t.Fatalf("test names: %d %d", len(long), len(wantHost))
	}
	mustKubectl(t, fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: %s}
spec:
%s  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: %s
    env: [{name: POD_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
    command: [sh, -c, "echo host=$(cat /etc/hostname) uts=$(hostname) name=$POD_NAME; trap 'exit 0' TERM; while true; do sleep 0.2; done"]
---
apiVersion: v1
kind: Pod
metadata: {name: selinux}
spec:
%s  terminationGracePeriodSeconds: 1
  securityContext:
    fsGroup: 123
    seLinuxOptions: {level: "s0"}
  volumes: [{name: v, emptyDir: {}}]
  containers:
  - name: app
    image: %s
    securityContext:
      runAsUser: 1001
      seLinuxOptions: {level: "s0:c0,c1"}
    volumeMounts: [{name: v, mountPath: /v}]
    command: [sh, -c, "echo mine > /v/f && echo perms=$(stat -c '%%g %%a' /v) file=$(stat -c '%%u %%g' /v/f) $(cat /v/f); trap 'exit 0' TERM; while true; do sleep 0.2; done"]
`, long, scheduling(tn.name), testImage, scheduling(tn.name), testImage), "-n", ns, "apply", "-f", "-")

	for _, pod := range []string{long, "selinux"} {
		var out string
		waitFor(t, "pod "+pod+" Running or failed", 3*time.Minute, func() (bool, error) {
			var err error
			out, err = kubectl(t, "", "-n", ns, "get", "pod", pod, "-o", "jsonpath={.status.phase} {.status.reason} {.status.message}")
			return err == nil && (strings.HasPrefix(out, "Running") || strings.Contains(out, "ProviderFailed")), fmt.Errorf("%q %v", out, err)
		})
		if !strings.HasPrefix(out, "Running") {
			t.Errorf("pod %s: %q, want Running", pod, out)
		}
	}
	wantLogs := map[string]string{
		long:      fmt.Sprintf("host=%s uts=%s name=%s", wantHost, wantHost, long),
		"selinux": "perms=123 2777 file=1001 123 mine",
	}
	for pod, want := range wantLogs {
		waitFor(t, "pod "+pod+"'s output", time.Minute, func() (bool, error) {
			out, err := kubectl(t, "", "-n", ns, "logs", pod)
			return err == nil && strings.TrimSpace(out) == want, fmt.Errorf("%q %v, want %q", out, err, want)
		})
	}
	for pod := range wantLogs {
		mustKubectl(t, "", "-n", ns, "delete", "pod", pod, "--wait=false")
	}
	for pod := range wantLogs {
		waitGone(t, ns, pod, 90*time.Second)
	}
}
