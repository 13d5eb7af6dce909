package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestNodeServiceAccountToken: with the API server's ServiceAccount admission plugin on, a pod
// gets the kube-api-access projected volume, which the node materializes as the kubelet does:
// the token (requested through the node's own credentials, bound to the pod) is accepted by the
// API server as the pod's service account, checked against ca.crt from kube-root-ca.crt;
// namespace is the pod's; a projected token of another audience and expiry carries them; the
// files have the atomic writer's ..data layout; a token past the node's --token-max-age is
// replaced by a fresh one through a ..data swap; the host directory goes with the pod. A pod
// with automountServiceAccountToken: false gets no token.
func TestNodeServiceAccountToken(t *testing.T) {
	// A token is refreshed at 80% of its life or at --token-max-age (the kubelet's 24 h): the
	// API server refuses lives under 10 minutes, so the test shortens the age.
	tn := startNodeWith(t, "podlife.io/node=true:NoSchedule", "--token-max-age", "3s")
	ns := "satoken-" + tn.name // one per node, so that -count=N runs again
	newNamespace(t, ns)
	sched := strings.Replace(scheduling(tn.name), "  automountServiceAccountToken: false\n", "", 1)
	manifest := fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: sa}
spec:
%s  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: %s
    command: [sh, -c, 'trap "exit 0" TERM; while true; do sleep 0.2; done']
    volumeMounts:
    - {name: short, mountPath: /short}
  volumes:
  - name: short
    projected:
      defaultMode: 0440
      sources:
      - serviceAccountToken: {path: tok, audience: podlife-e2e, expirationSeconds: 600}
      - downwardAPI:
          items:
          - {path: name, fieldRef: {fieldPath: metadata.name}}
---
apiVersion: v1
kind: Pod
metadata: {name: noauto}
spec:
%s  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: %s
    command: [sh, -c, 'trap "exit 0" TERM; while true; do sleep 0.2; done']
`, sched, testImage, scheduling(tn.name), testImage)
	mustKubectl(t, manifest, "-n", ns, "apply", "-f", "-")
	mustKubectl(t, "", "-n", ns, "wait", "--for=condition=Ready", "pod/sa", "pod/noauto", "--timeout=180s")
	const saDir = "/var/run/secrets/kubernetes.io/serviceaccount"
	cat := func(path string) string {
		t.Helper()
		return mustKubectl(t, "", "-n", ns, "exec", "sa", "--", "cat", path)
	}

	// The automounted volume: namespace, ca.crt, and a token the API server takes for the
	// pod's service account, bound to the pod.
	if got := cat(saDir + "/namespace"); got != ns {
		t.Errorf("namespace file: %q, want %q", got, ns)
	}
	ca := cat(saDir + "/ca.crt")
	if want := mustKubectl(t, "", "-n", ns, "get", "configmap", "kube-root-ca.crt", "-o", `jsonpath={.data.ca\.crt}`); ca != want || !strings.Contains(ca, "BEGIN CERTIFICATE") {
		t.Errorf("ca.crt: %q, want kube-root-ca.crt's %q", ca, want)
	}
	caFile := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(caFile, []byte(ca), 0o600); err != nil {
		t.Fatal(err)
	}
	// The atomic writer's layout, as it is between two writes (the node may be swapping in a
	// refreshed token right now: the steady state is waited for); the token read after it.
	var lines []string
	waitFor(t, "the ..data layout of "+saDir, time.Minute, func() (bool, error) {
		layout := mustKubectl(t, "", "-n", ns, "exec", "sa", "--", "sh", "-c",
			"cd "+saDir+" && readlink ..data && readlink token && readlink ca.crt && ls -a | tr '\\n' ' '")
		lines = strings.Split(strings.TrimSpace(layout), "\n")
		if len(lines) != 4 || !strings.HasPrefix(lines[0], "..20") || lines[1] != "..data/token" || lines[2] != "..data/ca.crt" {
			return false, fmt.Errorf("%q, want ..data -> a timestamped dir, token -> ..data/token, ca.crt -> ..data/ca.crt", layout)
		}
		names := strings.Fields(lines[3])
		return slices.Equal(names, []string{".", "..", lines[0], "..data", "ca.crt", "namespace", "token"}),
			fmt.Errorf("entries %v, want one payload, ..data and the three names", names)
	})
	token := cat(saDir + "/token")
	whoami(t, token, caFile, "system:serviceaccount:"+ns+":default", "sa")
	if _, err := kubectl(t, "", "-n", ns, "exec", "sa", "--", "touch", saDir+"/x"); err == nil {
		t.Errorf("%s is writable", saDir)
	}

	// A projected token with its own audience and expiry, next to a downwardAPI file, with the
	// volume's defaultMode.
	claims := jwtClaims(t, cat("/short/tok"))
	if aud, _ := claims["aud"].([]any); len(aud) != 1 || aud[0] != "podlife-e2e" {
		t.Errorf("audience of /short/tok: %v, want [podlife-e2e]", claims["aud"])
	}
	if exp, iat := claims["exp"].(float64), claims["iat"].(float64); exp-iat != 600 {
		t.Errorf("life of /short/tok: %v s, want 600", exp-iat)
	}
	if k8s, _ := claims["kubernetes.io"].(map[string]any); k8s == nil || k8s["pod"] == nil || k8s["pod"].(map[string]any)["name"] != "sa" {
		t.Errorf("/short/tok is not bound to the pod: %v", claims)
	}
	if got := mustKubectl(t, "", "-n", ns, "exec", "sa", "--", "sh", "-c", "cat /short/name; stat -L -c ' %a' /short/tok /short/name | tr -d '\\n'"); got != "sa 440 440" {
		t.Errorf("/short: %q, want the pod's name and mode 440 on both files", got)
	}

	// Rotation: a token past --token-max-age is replaced, through a ..data swap.
	var fresh string
	waitFor(t, "a refreshed token", time.Minute, func() (bool, error) {
		fresh = cat(saDir + "/token")
		return fresh != token, fmt.Errorf("the token is still the first one")
	})
	whoami(t, fresh, caFile, "system:serviceaccount:"+ns+":default", "sa")
	if data := strings.TrimSpace(mustKubectl(t, "", "-n", ns, "exec", "sa", "--", "readlink", saDir+"/..data")); data == lines[0] {
		t.Errorf("..data still -> %s after the refresh", data)
	}

	// No token for a pod that opts out.
	if _, err := kubectl(t, "", "-n", ns, "exec", "noauto", "--", "ls", saDir); err == nil {
		t.Errorf("pod noauto (automountServiceAccountToken: false) has %s", saDir)
	}

	// The pod's host directory goes with it.
	volumes := filepath.Join(tn.stateDir, "k8s-volumes")
	if dirs, _ := os.ReadDir(volumes); len(dirs) != 1 {
		t.Errorf("%s: %d pod directories, want 1 (pod sa's)", volumes, len(dirs))
	}
	mustKubectl(t, "", "-n", ns, "delete", "pod", "sa", "noauto", "--wait=false")
	waitGone(t, ns, "sa", 90*time.Second)
	if dirs, err := os.ReadDir(volumes); err != nil || len(dirs) != 0 {
		t.Errorf("%s after the pod's deletion: %d entries (%v), want none", volumes, len(dirs), err)
	}
	waitGone(t, ns, "noauto", 90*time.Second)
}

// whoami asks the API server who token is (a SelfSubjectReview, kubectl auth whoami), trusting
// only caFile, and checks the user and the pod it is bound to.
func whoami(t *testing.T, token, caFile, user, pod string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	empty := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, env.kubectl, "--kubeconfig", empty, "--server", env.cp.server,
		"--certificate-authority", caFile, "--token", token, "auth", "whoami", "-o", "json")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("kubectl auth whoami with the pod's token: %v: %s", err, errb.String())
	}
	var r struct {
		Status struct {
			UserInfo struct {
				Username string              `json:"username"`
				Extra    map[string][]string `json:"extra"`
			} `json:"userInfo"`
		} `json:"status"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("whoami: %v: %s", err, out.String())
	}
	u := r.Status.UserInfo
	if u.Username != user || !slices.Equal(u.Extra["authentication.kubernetes.io/pod-name"], []string{pod}) {
		t.Errorf("the token is %s (extra %v), want %s bound to pod %s", u.Username, u.Extra, user, pod)
	}
}

// jwtClaims returns the claims of a JWT, unverified.
func jwtClaims(t *testing.T, token string) map[string]any {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %.40q", token)
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	if err := json.Unmarshal(b, &claims); err != nil {
		t.Fatal(err)
	}
	return claims
}
