package main

import (
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/examples/node/internal/kubeletauth"
)

// kubeletAPIRequest is one request to a kubelet API, and its answer.
type kubeletAPIRequest struct {
	method, url string
	cert        *tls.Certificate // the client certificate, if any
	token       string           // the bearer token, if any
}

// do sends the request and returns the status code and (the start of) the body; a request
// that gets no HTTP answer (a TLS handshake refused) returns 0 and the error.
func (r kubeletAPIRequest) do(t *testing.T) (int, string) {
	t.Helper()
	cfg := &tls.Config{InsecureSkipVerify: true} // the node's serving certificate is self-signed
	if r.cert != nil {
		cfg.Certificates = []tls.Certificate{*r.cert}
	}
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}
	defer hc.CloseIdleConnections()
	req, err := http.NewRequest(r.method, r.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, string(b)
}

// clientCert returns a client certificate of the cluster's CA for cn in the groups orgs.
func clientCert(t *testing.T, cn string, orgs ...string) *tls.Certificate {
	t.Helper()
	_, c, err := env.cp.clientKubeconfig("user-"+strings.ReplaceAll(cn, ":", "-"), cn, orgs...)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := c.TLS()
	if err != nil {
		t.Fatal(err)
	}
	return &pair
}

// TestNodeKubeletAPIAuthz: the kubelet API authenticates (client certificates of --client-ca,
// bearer tokens by TokenReview) and authorizes every request with a SubjectAccessReview on
// nodes/NAME's subresources, as a kubelet with --authentication-token-webhook
// --authorization-mode=Webhook. The API server's kubelet client (bound to
// system:kubelet-api-admin) runs kubectl logs and exec; another node's client certificate and
// users without nodes/proxy, though their certificates chain to the same CA, get 403 for the
// pods list, logs and exec; no credentials, or a certificate of another CA, get 401.
func TestNodeKubeletAPIAuthz(t *testing.T) {
	tn := startNode(t)
	ns := "authz-" + env.runID
	newNamespace(t, ns)
	manifest := fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: victim}
spec:
%s  terminationGracePeriodSeconds: 2
  containers:
  - name: app
    image: %s
    command: [sh, -c, 'echo victim-output; trap "exit 0" TERM; while true; do sleep 0.2; done']
`, scheduling(tn.name), testImage)
	mustKubectl(t, manifest, "-n", ns, "apply", "-f", "-")
	mustKubectl(t, "", "-n", ns, "wait", "--for=condition=Ready", "pod/victim", "--timeout=180s")

	// The API server, with its kubelet client certificate: kubectl logs and exec.
	waitFor(t, "kubectl logs victim", time.Minute, func() (bool, error) {
		out, err := kubectl(t, "", "-n", ns, "logs", "victim")
		return err == nil && strings.TrimSpace(out) == "victim-output", fmt.Errorf("%q %v", out, err)
	})
	if out := mustKubectl(t, "", "-n", ns, "exec", "victim", "--", "echo", "exec-ok"); strings.TrimSpace(out) != "exec-ok" {
		t.Errorf("kubectl exec: %q, want exec-ok", out)
	}

	base := fmt.Sprintf("https://127.0.0.1:%d", tn.port)
	paths := map[string][2]string{
		"pods": {http.MethodGet, base + "/pods"},
		"logs": {http.MethodGet, base + "/containerLogs/" + ns + "/victim/app"},
		"exec": {http.MethodPost, base + "/exec/" + ns + "/victim/app?" + url.Values{"command": {"id"}, "output": {"1"}}.Encode()},
	}
	apiserverPair, err := tls.LoadX509KeyPair(env.cp.kubeletClient[0], env.cp.kubeletClient[1])
	if err != nil {
		t.Fatal(err)
	}
	otherCA, err := kubeletauth.NewCertificate("another-ca", true, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	forged, err := kubeletauth.NewCertificate("kube-apiserver-kubelet-client", false, nil, otherCA, "system:masters")
	if err != nil {
		t.Fatal(err)
	}
	forgedPair, err := forged.TLS()
	if err != nil {
		t.Fatal(err)
	}

	// Allowed: the API server's kubelet client, and a bearer token whose user RBAC grants
	// nodes/proxy (TokenReview, then SubjectAccessReview).
	for who, r := range map[string]kubeletAPIRequest{
		"the API server's kubelet client certificate":         {cert: &apiserverPair},
		"a token of a user bound to system:kubelet-api-admin": {token: env.cp.userTokens["kubelet-api-user"]},
	} {
		r.method, r.url = paths["pods"][0], paths["pods"][1]
		if code, body := r.do(t); code != http.StatusOK || !strings.Contains(body, `"victim"`) {
			t.Errorf("GET /pods with %s: %d %.200q, want 200 listing the pod", who, code, body)
		}
		r.method, r.url = paths["logs"][0], paths["logs"][1]
		if code, body := r.do(t); code != http.StatusOK || !strings.Contains(body, "victim-output") {
			t.Errorf("GET containerLogs with %s: %d %.200q, want 200 and the output", who, code, body)
		}
	}

	// Refused: each of these chains to the cluster's CA or has a valid token.
	forbidden := map[string]kubeletAPIRequest{
		"another node's client certificate":      {cert: clientCert(t, "system:node:pln-"+env.runID+"-other", "system:nodes")},
		"a user certificate without nodes/proxy": {cert: clientCert(t, "mallory", "developers")},
		"a token of a user without nodes/proxy":  {token: env.cp.userTokens["viewer"]},
		"this node's own client certificate":     {cert: clientCert(t, "system:node:"+tn.name, "system:nodes")},
	}
	for who, r := range forbidden {
		for what, p := range paths {
			r.method, r.url = p[0], p[1]
			if code, body := r.do(t); code != http.StatusForbidden {
				t.Errorf("%s %s with %s: %d %.200q, want 403", p[0], what, who, code, body)
			}
		}
	}
	unauthenticated := map[string]kubeletAPIRequest{
		"no credentials": {},
		"a certificate of another CA claiming the API server's name and system:masters": {cert: &forgedPair},
		"a bearer token the API server does not know":                                   {token: "0123456789abcdef0123456789abcdef"},
	}
	for who, r := range unauthenticated {
		for what, p := range paths {
			r.method, r.url = p[0], p[1]
			if code, body := r.do(t); code != http.StatusUnauthorized {
				t.Errorf("%s %s with %s: %d %.200q, want 401", p[0], what, who, code, body)
			}
		}
	}

	mustKubectl(t, "", "-n", ns, "delete", "pod", "victim", "--wait=false")
	waitGone(t, ns, "victim", 90*time.Second)
}
