package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestNodeRecreatedPod: a pod deleted and created again at once under the same name (a new UID)
// runs, each time: virtual-kubelet force-deletes a pod that is no longer running from the API
// server without waiting for the node, and hands the new pod to UpdatePod while the node still
// has the old one (upstream's "should set ownership and permission when RunAsUser or FsGroup
// is present" reuses a pod name so).
func TestNodeRecreatedPod(t *testing.T) {
	tn := startNode(t)
	ns := "recreate-" + tn.name
	newNamespace(t, ns)
	for _, word := range []string{"first", "second", "third"} {
		mustKubectl(t, fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: again}
spec:
%s  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: %s
    command: [echo, %s]
`, scheduling(tn.name), testImage, word), "-n", ns, "create", "-f", "-")
		mustKubectl(t, "", "-n", ns, "wait", "--for=jsonpath={.status.phase}=Succeeded", "pod/again", "--timeout=120s")
		if out := mustKubectl(t, "", "-n", ns, "logs", "again"); strings.TrimSpace(out) != word {
			t.Errorf("pod again's log: %q, want %q", out, word)
		}
		mustKubectl(t, "", "-n", ns, "delete", "pod", "again", "--wait=true", "--timeout=120s")
	}
}
