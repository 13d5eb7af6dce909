package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestNodeTerminationMessages runs the termination message specs of k8s.io/kubernetes
// test/e2e/common/node/runtime.go against the real control plane: each pod (restartPolicy
// Never) ends in the expected phase and its status.containerStatuses[0].state.terminated.message
// is what the kubelet reports.
func TestNodeTerminationMessages(t *testing.T) {
	tn := startNode(t)
	ns := "e2e-termmsg-" + env.runID
	newNamespace(t, ns)
	cases := []struct {
		name, container, phase, want string
	}{
		// "should report termination message if TerminationMessagePath is set"
		{"from-file", `command: [/bin/sh, -c, "/bin/echo -n DONE > /dev/termination-log"]
    terminationMessagePath: /dev/termination-log
    securityContext: {runAsUser: 0}`, "Succeeded", "DONE"},
		// "... as non-root user and at a non-default path"
		{"non-root", `command: [/bin/sh, -c, "/bin/echo -n DONE > /dev/termination-custom-log"]
    terminationMessagePath: /dev/termination-custom-log
    securityContext: {runAsUser: 1000}`, "Succeeded", "DONE"},
		// "... from log output if TerminationMessagePolicy FallbackToLogsOnError is set"
		{"fallback", `command: [/bin/sh, -c, "/bin/echo -n DONE; /bin/false"]
    terminationMessagePolicy: FallbackToLogsOnError`, "Failed", "DONE"},
		// "... as empty when pod succeeds and TerminationMessagePolicy FallbackToLogsOnError is set"
		{"success-empty", `command: [/bin/sh, -c, "/bin/echo -n DONE; /bin/true"]
    terminationMessagePolicy: FallbackToLogsOnError`, "Succeeded", ""},
		// "... from file when pod succeeds and TerminationMessagePolicy FallbackToLogsOnError is set"
		{"success-file", `command: [/bin/sh, -c, "/bin/echo -n OK > /dev/termination-log; /bin/echo DONE; /bin/true"]
    terminationMessagePolicy: FallbackToLogsOnError`, "Succeeded", "OK"},
	}
	var manifests []string
	for _, c := range cases {
		manifests = append(manifests, fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: %s}
spec:
%s  restartPolicy: Never
  containers:
  - name: app
    image: %s
    %s
`, c.name, scheduling(tn.name), testImage, c.container))
	}
	mustKubectl(t, strings.Join(manifests, "---\n"), "-n", ns, "apply", "-f", "-")
	for _, c := range cases {
		mustKubectl(t, "", "-n", ns, "wait", "--for=jsonpath={.status.phase}="+c.phase, "pod/"+c.name, "--timeout=120s")
		got := mustKubectl(t, "", "-n", ns, "get", "pod", c.name, "-o", "jsonpath={.status.containerStatuses[0].state.terminated.message}")
		if got != c.want {
			t.Errorf("%s: state.terminated.message %q, want %q", c.name, got, c.want)
		}
	}
}
