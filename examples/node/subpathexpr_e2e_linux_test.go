package main

import (
	"fmt"
	"testing"
)

// TestNodeSubPathExprWaits has the shape of the conformance spec "Variable Expansion should
// verify that a failing subpath expansion can be modified during the lifecycle of a
// container": a subPathExpr made of an annotation the pod does not have yet keeps the pod
// Pending, its container Waiting with the kubelet's CreateContainerConfigError (not Failed);
// once the annotation is added, the container is created with the expanded subPath.
func TestNodeSubPathExprWaits(t *testing.T) {
	tn := startNode(t)
	ns := "subpathexpr-" + env.runID
	newNamespace(t, ns)
	mustKubectl(t, fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: var-expansion, annotations: {notmysubpath: mypath}}
spec:
%s  terminationGracePeriodSeconds: 1
  volumes: [{name: workdir1, emptyDir: {}}]
  containers:
  - name: c
    image: %s
    command: [sh, -c, 'touch /subpath_mount/created; trap "exit 0" TERM; while true; do sleep 0.2; done']
    env:
    - {name: POD_NAME, value: foo}
    - {name: ANNOTATION, valueFrom: {fieldRef: {apiVersion: v1, fieldPath: "metadata.annotations['mysubpath']"}}}
    volumeMounts:
    - {name: workdir1, mountPath: /subpath_mount, subPathExpr: "$(ANNOTATION)/$(POD_NAME)"}
    - {name: workdir1, mountPath: /volume_mount}
`, scheduling(tn.name), testImage), "-n", ns, "apply", "-f", "-")
	mustKubectl(t, "", "-n", ns, "wait", "--for=jsonpath={.status.containerStatuses[0].state.waiting.reason}=CreateContainerConfigError",
		"pod/var-expansion", "--timeout=120s")
	if got := mustKubectl(t, "", "-n", ns, "get", "pod", "var-expansion", "-o", "jsonpath={.status.phase} {.status.containerStatuses[0].state.waiting.message}"); got != "Pending missing value for ANNOTATION" {
		t.Errorf("phase and waiting message: %q, want Pending and the kubelet's message", got)
	}
	mustKubectl(t, "", "-n", ns, "annotate", "pod", "var-expansion", "mysubpath=mypath")
	mustKubectl(t, "", "-n", ns, "wait", "--for=condition=Ready", "pod/var-expansion", "--timeout=120s")
	mustKubectl(t, "", "-n", ns, "exec", "var-expansion", "--", "test", "-f", "/volume_mount/mypath/foo/created")
}
