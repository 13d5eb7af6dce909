package main

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestNodeReadinessGates has the shape of the conformance spec "Pods should support pod
// readiness gates": the pod is Running but not Ready until another client sets each gate's
// condition True on its status through the API server, and not Ready again once one is
// False. A condition another client set that names no gate stays in the status the node
// writes, as the kubelet keeps it.
func TestNodeReadinessGates(t *testing.T) {
	tn := startNode(t)
	ns := "gates-" + env.runID
	newNamespace(t, ns)
	mustKubectl(t, fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: gated}
spec:
%s  terminationGracePeriodSeconds: 1
  readinessGates: [{conditionType: k8s.io/test-condition1}, {conditionType: k8s.io/test-condition2}]
  containers:
  - name: app
    image: %s
    command: [sh, -c, 'trap "exit 0" TERM; while true; do sleep 0.2; done']
`, scheduling(tn.name), testImage), "-n", ns, "apply", "-f", "-")
	mustKubectl(t, "", "-n", ns, "wait", "--for=condition=ContainersReady", "pod/gated", "--timeout=180s")
	ready := func() string {
		return mustKubectl(t, "", "-n", ns, "get", "pod", "gated", "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
	}
	if r := ready(); r != "False" {
		t.Fatalf("Ready = %q with no gate condition set, want False", r)
	}
	patch := func(cond, status string) {
		b, _ := json.Marshal(map[string]any{"status": map[string]any{"conditions": []map[string]string{{"type": cond, "status": status}}}})
		mustKubectl(t, "", "-n", ns, "patch", "pod", "gated", "--subresource=status", "--type=strategic", "-p", string(b))
	}
	patch("example.com/not-a-gate", "True")
	patch("k8s.io/test-condition1", "True")
	// One gate of two: the node's status says why it is not Ready.
	mustKubectl(t, "", "-n", ns, "wait", `--for=jsonpath={.status.conditions[?(@.type=="Ready")].reason}=ReadinessGatesNotReady`, "pod/gated", "--timeout=60s")
	patch("k8s.io/test-condition2", "True")
	mustKubectl(t, "", "-n", ns, "wait", "--for=condition=Ready", "pod/gated", "--timeout=60s")
	if got := mustKubectl(t, "", "-n", ns, "get", "pod", "gated", "-o", `jsonpath={.status.conditions[?(@.type=="example.com/not-a-gate")].status}`); got != "True" {
		t.Errorf("condition example.com/not-a-gate = %q after the node wrote the status, want True (kept)", got)
	}
	patch("k8s.io/test-condition1", "False")
	mustKubectl(t, "", "-n", ns, "wait", "--for=condition=Ready=false", "pod/gated", "--timeout=60s")
}
