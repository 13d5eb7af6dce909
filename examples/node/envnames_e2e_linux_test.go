package main

import (
	"fmt"
	"testing"
	"time"
)

// TestNodeEnvFromAnyNames has the shape of the conformance specs "ConfigMap / Secrets should be
// consumable as environment variable names with various prefixes": envFrom with prefixes that
// start with a digit or hold symbols ("1-", "$_-", "#@!") gives the container variables whose
// names are not shell identifiers, as on a kubelet. The container runs busybox's env applet
// itself: the specs print the environment with `sh -c env`, and the busybox 1.35 built here has
// its ash drop such names before it runs env (upstream's busybox 1.37 image keeps them), so
// the specs are in conformance-skip.txt and this test is what checks podlife-node's part.
func TestNodeEnvFromAnyNames(t *testing.T) {
	tn := startNode(t)
	ns := "envnames-" + env.runID
	newNamespace(t, ns)
	prefixes := []string{"", "1-", "$_-", "ABC_", "#@!"}
	var from string
	for _, p := range prefixes {
		from += fmt.Sprintf("    - prefix: %q\n      configMapRef: {name: names}\n    - prefix: %q\n      secretRef: {name: names}\n", p, "s"+p)
	}
	mustKubectl(t, fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata: {name: names}
data: {data-1: value-1, data-2: value-2}
---
apiVersion: v1
kind: Secret
metadata: {name: names}
stringData: {data-3: value-3}
---
apiVersion: v1
kind: Pod
metadata: {name: names}
spec:
%s  restartPolicy: Never
  containers:
  - name: env
    image: %s
    command: [env]
    envFrom:
%s`, scheduling(tn.name), testImage, from), "-n", ns, "apply", "-f", "-")
	mustKubectl(t, "", "-n", ns, "wait", "--for=jsonpath={.status.phase}=Succeeded", "pod/names", "--timeout=180s")
	var logs string
	waitFor(t, "the pod's env in its log", time.Minute, func() (bool, error) {
		out, err := kubectl(t, "", "-n", ns, "logs", "names")
		logs = out
		return err == nil && containsLine(out, "#@!data-1=value-1"), fmt.Errorf("%q %v", out, err)
	})
	for _, p := range prefixes {
		for _, want := range []string{p + "data-1=value-1", p + "data-2=value-2", "s" + p + "data-3=value-3"} {
			if !containsLine(logs, want) {
				t.Errorf("no line %q in the container's env:\n%s", want, logs)
			}
		}
	}
}
