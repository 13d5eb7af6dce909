package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestNodeServiceEnv has the shape of the conformance spec "Pods should contain environment
// variables for services": a Service of the pod's namespace gives its containers
// FOOSERVICE_SERVICE_HOST, FOOSERVICE_SERVICE_PORT and Docker's link variables, the default
// namespace's kubernetes Service KUBERNETES_SERVICE_HOST..., and $(VAR) references to them
// expand in the command, as on a kubelet; with enableServiceLinks false only the kubernetes
// Service's remain.
func TestNodeServiceEnv(t *testing.T) {
	tn := startNode(t)
	ns := "svcenv-" + env.runID
	newNamespace(t, ns)
	mustKubectl(t, `apiVersion: v1
kind: Service
metadata: {name: fooservice}
spec:
  selector: {app: nothing}
  ports: [{name: http-api, port: 8765, targetPort: 8080}]
`, "-n", ns, "apply", "-f", "-")
	ip := mustKubectl(t, "", "-n", ns, "get", "service", "fooservice", "-o", "jsonpath={.spec.clusterIP}")
	kip := mustKubectl(t, "", "-n", "default", "get", "service", "kubernetes", "-o", "jsonpath={.spec.clusterIP}")
	kport := mustKubectl(t, "", "-n", "default", "get", "service", "kubernetes", "-o", "jsonpath={.spec.ports[0].port}")
	if ip == "" || kip == "" {
		t.Fatalf("cluster IPs: fooservice %q, kubernetes %q", ip, kip)
	}
	for _, links := range []bool{true, false} {
		name := fmt.Sprintf("links-%v", links)
		mustKubectl(t, fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: %s}
spec:
%s  enableServiceLinks: %v
  restartPolicy: Never
  containers:
  - name: env
    image: %s
    command: [sh, -c, 'env; echo "expanded=$(KUBERNETES_SERVICE_HOST):$(KUBERNETES_SERVICE_PORT)"']
`, name, scheduling(tn.name), links, testImage), "-n", ns, "apply", "-f", "-")
	}
	logs := map[bool]string{}
	for _, links := range []bool{true, false} {
		name := fmt.Sprintf("links-%v", links)
		mustKubectl(t, "", "-n", ns, "wait", "--for=jsonpath={.status.phase}=Succeeded", "pod/"+name, "--timeout=180s")
		waitFor(t, name+"'s env in its log", time.Minute, func() (bool, error) {
			out, err := kubectl(t, "", "-n", ns, "logs", name)
			logs[links] = out
			return err == nil && strings.Contains(out, "expanded="), fmt.Errorf("%q %v", out, err)
		})
	}
	kubernetes := []string{
		"KUBERNETES_SERVICE_HOST=" + kip, "KUBERNETES_SERVICE_PORT=" + kport,
		"KUBERNETES_PORT=tcp://" + kip + ":" + kport, "expanded=" + kip + ":" + kport,
	}
	foo := []string{
		"FOOSERVICE_SERVICE_HOST=" + ip, "FOOSERVICE_SERVICE_PORT=8765", "FOOSERVICE_SERVICE_PORT_HTTP_API=8765",
		"FOOSERVICE_PORT=tcp://" + ip + ":8765", "FOOSERVICE_PORT_8765_TCP=tcp://" + ip + ":8765",
		"FOOSERVICE_PORT_8765_TCP_PROTO=tcp", "FOOSERVICE_PORT_8765_TCP_PORT=8765", "FOOSERVICE_PORT_8765_TCP_ADDR=" + ip,
	}
	for _, want := range append(kubernetes, foo...) {
		if !containsLine(logs[true], want) {
			t.Errorf("enableServiceLinks true: no line %q in the container's env:\n%s", want, logs[true])
		}
	}
	for _, want := range kubernetes {
		if !containsLine(logs[false], want) {
			t.Errorf("enableServiceLinks false: no line %q in the container's env:\n%s", want, logs[false])
		}
	}
	if strings.Contains(logs[false], "FOOSERVICE_") {
		t.Errorf("enableServiceLinks false: the namespace's Services are in the env:\n%s", logs[false])
	}
}
