package kube_test

import (
	"strings"
	"testing"

	"github.com/podlife/podlife/podlife/kube"
)

// longPod is a pod whose name is a 71-character DNS subdomain (the API server allows 253),
// with the downward API's metadata.name in its environment.
const longName = "a-pod-whose-name-is-longer-than-a-dns-label-allows-which-kube--takes-it"

func longPod(extra string) string {
	return `apiVersion: v1
kind: Pod
metadata: {name: ` + longName + `, namespace: ns}
spec:
` + extra + `  containers:
  - name: c
    image: busybox
    env: [{name: NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
`
}

// A pod name over 63 characters: with Options.PodName the pod gets the mapped podlife name,
// the kubelet's hostname (the Kubernetes name cut to 63 characters, trailing '-' trimmed) and
// its Kubernetes name in the downward API; without, a clear error at metadata.name.
func TestLongPodName(t *testing.T) {
	var asked string
	opts := kube.Options{PodName: func(ns, name string) string { asked = ns + "/" + name; return "mapped" }}
	spec := onePod(t, mustLoad(t, opts, longPod("")))
	if asked != "ns/"+longName || spec.Name != "mapped" {
		t.Errorf("PodName asked %q, spec.Name %q; want ns/%s and mapped", asked, spec.Name, longName)
	}
	// The 62nd and 63rd characters are "-", which the kubelet trims.
	if want := "a-pod-whose-name-is-longer-than-a-dns-label-allows-which-kube"; spec.Hostname != want {
		t.Errorf("Hostname = %q, want %q", spec.Hostname, want)
	}
	if env := spec.Containers[0].Env; len(env) != 1 || env[0].Value != longName {
		t.Errorf("downward metadata.name = %+v, want %q", env, longName)
	}

	spec = onePod(t, mustLoad(t, opts, longPod("  hostname: set\n")))
	if spec.Hostname != "set" {
		t.Errorf("with spec.hostname: Hostname = %q, want set", spec.Hostname)
	}
	spec = onePod(t, mustLoad(t, kube.Options{PodName: func(_, name string) string { return name }}, strings.Replace(longPod(""), longName, "short", 1)))
	if spec.Name != "short" || spec.Hostname != "" {
		t.Errorf("a name PodName keeps: Name %q Hostname %q, want short and podlife's default", spec.Name, spec.Hostname)
	}

	_, err := loadString(kube.Options{}, longPod(""))
	is := loadErrors(t, err)
	if len(is) != 1 || is[0].Path != "metadata.name" || !strings.Contains(is[0].Message, "must be no more than 63 characters") ||
		!strings.Contains(is[0].Message, "Options.PodName") {
		t.Errorf("without PodName: issues %v, want one at metadata.name saying 63 and naming Options.PodName", is)
	}
	_, err = loadString(opts, strings.Replace(longPod(""), longName, longName+strings.Repeat("x", 200), 1))
	if is := loadErrors(t, err); len(is) != 1 || is[0].Path != "metadata.name" || !strings.Contains(is[0].Message, "no more than 253") {
		t.Errorf("a 271-character name with PodName: issues %v, want the API server's 253 limit", is)
	}
}

// mustLoad loads one manifest and fails the test on an error.
func mustLoad(t *testing.T, opts kube.Options, manifest string) *kube.Result {
	t.Helper()
	res, err := loadString(opts, manifest)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return res
}
