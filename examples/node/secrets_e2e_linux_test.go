package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestNodeReadsOnlyItsPodsSecrets: the node runs as system:node:NAME in system:nodes, against
// an API server with the Node authorizer and NodeRestriction, and nothing more: a pod with a
// Secret volume and a ConfigMap env var runs with both (the node GETs exactly the objects its
// pod refers to), while the node's own credentials get 403 from the API server for a Secret no
// pod of its own uses and for listing Secrets or ConfigMaps; once the pod is gone, for its
// Secret too.
func TestNodeReadsOnlyItsPodsSecrets(t *testing.T) {
	tn := startNode(t)
	ns := "scope-" + env.runID
	newNamespace(t, ns)
	manifest := fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data:
  greeting: hello-from-settings
---
apiVersion: v1
kind: Secret
metadata: {name: mounted}
stringData:
  password: mounted-s3cr3t
---
apiVersion: v1
kind: Secret
metadata: {name: unrelated}
stringData:
  password: not-for-this-node
---
apiVersion: v1
kind: Pod
metadata: {name: reader}
spec:
%s  terminationGracePeriodSeconds: 2
  containers:
  - name: app
    image: %s
    command: [sh, -c, 'trap "exit 0" TERM; while true; do sleep 0.2; done']
    env:
    - name: GREETING
      valueFrom: {configMapKeyRef: {name: settings, key: greeting}}
    volumeMounts:
    - {name: creds, mountPath: /creds}
  volumes:
  - name: creds
    secret: {secretName: mounted}
`, scheduling(tn.name), testImage)
	mustKubectl(t, manifest, "-n", ns, "apply", "-f", "-")
	mustKubectl(t, "", "-n", ns, "wait", "--for=condition=Ready", "pod/reader", "--timeout=180s")
	if out := mustKubectl(t, "", "-n", ns, "exec", "reader", "--", "sh", "-c", `echo "$GREETING $(cat /creds/password)"`); strings.TrimSpace(out) != "hello-from-settings mounted-s3cr3t" {
		t.Errorf("the pod's env and Secret volume: %q, want hello-from-settings mounted-s3cr3t", out)
	}

	// The node's own credentials, straight to the API server.
	node := kubeletAPIRequest{cert: clientCert(t, "system:node:"+tn.name, "system:nodes")}
	api := env.cp.server + "/api/v1"
	for _, c := range []struct {
		what, url string
		want      int
	}{
		{"the Secret its pod mounts", api + "/namespaces/" + ns + "/secrets/mounted", http.StatusOK},
		{"the ConfigMap its pod uses", api + "/namespaces/" + ns + "/configmaps/settings", http.StatusOK},
		{"a Secret no pod of its own uses", api + "/namespaces/" + ns + "/secrets/unrelated", http.StatusForbidden},
		{"the Secrets of the namespace", api + "/namespaces/" + ns + "/secrets", http.StatusForbidden},
		{"every Secret of the cluster", api + "/secrets", http.StatusForbidden},
		{"every ConfigMap of the cluster", api + "/configmaps", http.StatusForbidden},
	} {
		node.method, node.url = http.MethodGet, c.url
		code, body := node.do(t)
		if code != c.want {
			t.Errorf("GET %s (%s) as system:node:%s: %d %.300q, want %d", c.what, c.url, tn.name, code, body, c.want)
		}
		if c.want == http.StatusForbidden && strings.Contains(body, "not-for-this-node") {
			t.Errorf("GET %s: the Secret's data came back", c.what)
		}
	}

	mustKubectl(t, "", "-n", ns, "delete", "pod", "reader", "--wait=false")
	waitGone(t, ns, "reader", 90*time.Second)
	// Its pod gone, the node can no longer read the Secret it used.
	waitFor(t, "the mounted Secret forbidden to the node once its pod is gone", time.Minute, func() (bool, error) {
		node.url = api + "/namespaces/" + ns + "/secrets/mounted"
		code, _ := node.do(t)
		return code == http.StatusForbidden, fmt.Errorf("status %d", code)
	})
}
