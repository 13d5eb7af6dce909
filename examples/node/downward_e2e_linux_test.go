package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestNodeDownwardAPIEnv has the shape of Kubernetes' node conformance tests "should provide
// pod UID as env vars", "should provide pod name, namespace and IP address as env vars" and
// "should provide host IP as an env var": the container prints its environment, and the
// variables read through fieldRef are the pod's API UID, its IP and the node's IP as the API
// server reports them in the pod's status, and the node's name.
func TestNodeDownwardAPIEnv(t *testing.T) {
	tn := startNode(t)
	ns := "dapi-" + env.runID
	newNamespace(t, ns)
	var envYAML strings.Builder
	for _, v := range []struct{ name, path string }{
		{"POD_NAME", "metadata.name"}, {"POD_NAMESPACE", "metadata.namespace"}, {"POD_UID", "metadata.uid"},
		{"POD_IP", "status.podIP"}, {"POD_IPS", "status.podIPs"}, {"HOST_IP", "status.hostIP"},
		{"HOST_IPS", "status.hostIPs"}, {"NODE_NAME", "spec.nodeName"},
	} {
		fmt.Fprintf(&envYAML, "    - {name: %s, valueFrom: {fieldRef: {apiVersion: v1, fieldPath: %s}}}\n", v.name, v.path)
	}
	manifest := fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: dapi}
spec:
%s  terminationGracePeriodSeconds: 2
  containers:
  - name: dapi-container
    image: %s
    command: [sh, -c, 'env; trap "exit 0" TERM; while true; do sleep 0.2; done']
    env:
%s`, scheduling(tn.name), testImage, envYAML.String())
	mustKubectl(t, manifest, "-n", ns, "apply", "-f", "-")
	mustKubectl(t, "", "-n", ns, "wait", "--for=condition=Ready", "pod/dapi", "--timeout=180s")
	status := strings.Fields(mustKubectl(t, "", "-n", ns, "get", "pod", "dapi", "-o",
		`jsonpath={.metadata.uid} {.status.podIP} {.status.hostIP}`))
	if len(status) != 3 {
		t.Fatalf("pod uid, podIP, hostIP: %q", status)
	}
	uid, podIP, hostIP := status[0], status[1], status[2]
	var logs string
	waitFor(t, "the container's env in its log", time.Minute, func() (bool, error) {
		out, err := kubectl(t, "", "-n", ns, "logs", "dapi")
		logs = out
		return err == nil && strings.Contains(out, "POD_UID="), fmt.Errorf("%q %v", out, err)
	})
	for _, want := range []string{
		"POD_NAME=dapi", "POD_NAMESPACE=" + ns, "POD_UID=" + uid,
		"POD_IP=" + podIP, "POD_IPS=" + podIP, "HOST_IP=" + hostIP, "HOST_IPS=" + hostIP,
		"NODE_NAME=" + tn.name,
	} {
		if !containsLine(logs, want) {
			t.Errorf("the container's env has no line %q:\n%s", want, logs)
		}
	}
	if hostIP != "127.0.0.1" { // the test's --node-ip
		t.Errorf("status.hostIP = %q, want the node's 127.0.0.1", hostIP)
	}
}

func containsLine(s, line string) bool {
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) == line {
			return true
		}
	}
	return false
}
