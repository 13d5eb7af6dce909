package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestNodeEphemeralContainers has the shape of the conformance spec "Ephemeral Containers
// will start an ephemeral container in an existing pod": an ephemeral container added through
// the API server (kubectl debug, the pods/ephemeralcontainers subresource) runs in the pod,
// its status in ephemeralContainerStatuses, its output in its log, exec into it works; a second
// one added later runs too, and the pod's own container was not restarted.
func TestNodeEphemeralContainers(t *testing.T) {
	tn := startNode(t)
	ns := "ephemeral-" + env.runID
	newNamespace(t, ns)
	mustKubectl(t, fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: target}
spec:
%s  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: %s
    command: [sh, -c, 'trap "exit 0" TERM; while true; do sleep 0.2; done']
`, scheduling(tn.name), testImage), "-n", ns, "apply", "-f", "-")
	mustKubectl(t, "", "-n", ns, "wait", "--for=condition=Ready", "pod/target", "--timeout=180s")
	for _, name := range []string{"debugger", "debugger2"} {
		mustKubectl(t, "", "-n", ns, "debug", "target", "--image="+testImage, "--image-pull-policy=IfNotPresent",
			"--container="+name, "--profile=general", "--", "sh", "-c", `trap "exit 0" TERM; while true; do echo polo; sleep 1; done`)
		waitFor(t, name+" running", 2*time.Minute, func() (bool, error) {
			out, err := kubectl(t, "", "-n", ns, "get", "pod", "target", "-o",
				fmt.Sprintf(`jsonpath={.status.ephemeralContainerStatuses[?(@.name==%q)].state.running.startedAt}`, name))
			return err == nil && out != "", fmt.Errorf("%q %v", out, err)
		})
		waitFor(t, name+"'s log", time.Minute, func() (bool, error) {
			out, err := kubectl(t, "", "-n", ns, "logs", "target", "-c", name)
			return err == nil && strings.Contains(out, "polo"), fmt.Errorf("%q %v", out, err)
		})
		if out := mustKubectl(t, "", "-n", ns, "exec", "target", "-c", name, "--", "echo", "marco"); strings.TrimSpace(out) != "marco" {
			t.Errorf("exec in %s: %q, want marco", name, out)
		}
	}
	p := getPod(t, ns, "target")
	if len(p.Status.ContainerStatuses) != 1 || p.Status.ContainerStatuses[0].RestartCount != 0 || !p.Status.ContainerStatuses[0].Ready {
		t.Errorf("the pod's container after the ephemeral ones: %+v, want ready, never restarted", p.Status.ContainerStatuses)
	}
}
