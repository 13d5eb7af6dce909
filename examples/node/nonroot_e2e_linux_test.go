package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// TestNodeRunAsNonRootExplicitRoot: upstream e2e "should not run with an explicit root user
// ID". The API server accepts runAsNonRoot with runAsUser 0; the kubelet admits the pod and
// reports the container: a Failed event and the container Waiting CreateContainerConfigError
// with its message, while the pod's other container runs. podlife-node used to refuse the pod
// (ProviderFailed), with no Failed event.
func TestNodeRunAsNonRootExplicitRoot(t *testing.T) {
	tn := startNode(t)
	ns := "e2e-nonroot-" + env.runID
	newNamespace(t, ns)
	manifest := fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: explicit-root-uid}
spec:
%s  terminationGracePeriodSeconds: 1
  containers:
  - name: explicit-root-uid
    image: %[2]s
    command: [sleep, "3600"]
    securityContext: {runAsNonRoot: true, runAsUser: 0}
  - name: other
    image: %[2]s
    command: [sleep, "3600"]
    securityContext: {runAsUser: 1000}
`, scheduling(tn.name), testImage)
	mustKubectl(t, manifest, "-n", ns, "apply", "-f", "-")
	want := "container's runAsUser breaks non-root policy"
	waitFor(t, "a Failed event for explicit-root-uid", 2*time.Minute, func() (bool, error) {
		out, err := kubectl(t, "", "-n", ns, "get", "events", "--field-selector", "involvedObject.name=explicit-root-uid,reason=Failed",
			"-o", "jsonpath={range .items[*]}{.involvedObject.fieldPath} {.message}{\"\\n\"}{end}")
		if err != nil {
			return false, err
		}
		return strings.Contains(out, "spec.containers{explicit-root-uid} Error: "+want), fmt.Errorf("events: %q", out)
	})
	var pod corev1.Pod
	waitFor(t, "the other container running, the refused one waiting", time.Minute, func() (bool, error) {
		out, err := kubectl(t, "", "-n", ns, "get", "pod", "explicit-root-uid", "-o", "json")
		if err != nil {
			return false, err
		}
		if err := json.Unmarshal([]byte(out), &pod); err != nil {
			return false, err
		}
		st := map[string]corev1.ContainerState{}
		for _, c := range pod.Status.ContainerStatuses {
			st[c.Name] = c.State
		}
		w := st["explicit-root-uid"].Waiting
		ok := st["other"].Running != nil && w != nil && w.Reason == "CreateContainerConfigError" && strings.HasPrefix(w.Message, want)
		return ok, fmt.Errorf("statuses %+v", pod.Status.ContainerStatuses)
	})
	if pod.Status.Phase != corev1.PodPending {
		t.Errorf("phase %s, want Pending (a container waiting), as the kubelet's", pod.Status.Phase)
	}
}
