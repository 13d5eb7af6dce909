package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// waitFor polls check (a kubectl query) until it returns true, for what kubectl wait cannot
// express; it fails the test after timeout with the last error.
func waitFor(t *testing.T, what string, timeout time.Duration, check func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		ok, err := check()
		if ok {
			return
		}
		last = err
		time.Sleep(300 * time.Millisecond)
	}
	t.Fatalf("timed out after %v waiting for %s (last error: %v)", timeout, what, last)
}

// newNamespace creates namespace ns for a test, deleted (without waiting) when the test ends,
// and waits until pods can be created in it (waitServiceAccount).
func newNamespace(t *testing.T, ns string) {
	t.Helper()
	mustKubectl(t, "", "create", "namespace", ns)
	t.Cleanup(func() { _, _ = kubectl(t, "", "delete", "namespace", ns, "--wait=false") })
	waitServiceAccount(t, ns)
}

// waitServiceAccount waits for the namespace's default service account, which the
// controller-manager creates and the API server's admission requires of every pod.
func waitServiceAccount(t *testing.T, ns string) {
	t.Helper()
	waitFor(t, "serviceaccount "+ns+"/default", 2*time.Minute, func() (bool, error) {
		_, err := kubectl(t, "", "-n", ns, "get", "serviceaccount", "default")
		return err == nil, err
	})
}

// TestNodeRunsPod: the node registers Ready; a pod selecting and tolerating it runs with a pod
// IP, its ConfigMap volume and Secret env var read from the API server; kubectl get, logs and
// exec work; kubectl delete runs its preStop hook and the pod disappears; a pod podlife cannot
// run is reported ProviderFailed with the offending field.
func TestNodeRunsPod(t *testing.T) {
	tn := startNode(t)

	// The Node, as kubectl shows it: Ready, podlife's label and taint, the host's capacity.
	line := ""
	for l := range strings.SplitSeq(mustKubectl(t, "", "get", "nodes", "--no-headers"), "\n") {
		if strings.HasPrefix(l, tn.name+" ") {
			line = l
		}
	}
	if f := strings.Fields(line); len(f) < 2 || f[1] != "Ready" {
		t.Fatalf("kubectl get nodes: %q, want %s Ready", line, tn.name)
	}
	var node struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
		Spec struct {
			Taints []struct{ Key, Effect string } `json:"taints"`
		} `json:"spec"`
		Status struct {
			Capacity    map[string]string               `json:"capacity"`
			Allocatable map[string]string               `json:"allocatable"`
			Conditions  []struct{ Type, Status string } `json:"conditions"`
		} `json:"status"`
	}
	if err := json.Unmarshal([]byte(mustKubectl(t, "", "get", "node", tn.name, "-o", "json")), &node); err != nil {
		t.Fatal(err)
	}
	if node.Metadata.Labels["podlife.io/node"] != "true" {
		t.Errorf("node labels %v: want podlife.io/node=true", node.Metadata.Labels)
	}
	// (The node-lifecycle controller's not-ready taint may still be there: it lags the Ready
	// condition.)
	if !slices.ContainsFunc(node.Spec.Taints, func(tt struct{ Key, Effect string }) bool {
		return tt.Key == "podlife.io/node" && tt.Effect == "NoSchedule"
	}) {
		t.Errorf("node taints %+v: want podlife.io/node:NoSchedule", node.Spec.Taints)
	}
	if cpu, _ := strconv.Atoi(node.Status.Capacity["cpu"]); cpu < 1 || node.Status.Allocatable["pods"] != "110" || node.Status.Capacity["memory"] == "" {
		t.Errorf("node capacity %v allocatable %v: want the host's CPUs and memory, 110 pods", node.Status.Capacity, node.Status.Allocatable)
	}
	conds := map[string]string{}
	for _, c := range node.Status.Conditions {
		conds[c.Type] = c.Status
	}
	if conds["Ready"] != "True" || conds["MemoryPressure"] != "False" || conds["DiskPressure"] != "False" || conds["PIDPressure"] != "False" {
		t.Errorf("node conditions %v: want Ready and no pressure", conds)
	}

	ns := "e2e-" + env.runID
	newNamespace(t, ns)
	hostDir := t.TempDir()
	manifest := fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata: {name: greeting}
data:
  greeting: hello from a configmap
---
apiVersion: v1
kind: Secret
metadata: {name: creds}
stringData:
  password: s3cr3t
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
%s  terminationGracePeriodSeconds: 20
  containers:
  - name: app
    image: %s
    command: [sh, -c, 'echo started; cat /cfg/greeting; echo; echo "password=$PASSWORD"; trap "exit 0" TERM; while true; do sleep 0.2; done']
    env:
    - name: PASSWORD
      valueFrom: {secretKeyRef: {name: creds, key: password}}
    volumeMounts:
    - {name: cfg, mountPath: /cfg}
    - {name: host, mountPath: /host}
    lifecycle:
      preStop:
        exec: {command: [sh, -c, %q]}
  volumes:
  - name: cfg
    configMap: {name: greeting}
  - name: host
    hostPath: {path: %s, type: Directory}
`, scheduling(tn.name), testImage, uptime("/host/events", "app", "prestop"), hostDir)
	mustKubectl(t, manifest, "-n", ns, "apply", "-f", "-")
	mustKubectl(t, "", "-n", ns, "wait", "--for=condition=Ready", "pod/web", "--timeout=180s")

	// Status: Running on this node with an IP of its subnet, podlife's container status and
	// the kubelet's conditions.
	p := getPod(t, ns, "web")
	if p.Spec.NodeName != tn.name || p.Status.Phase != "Running" || p.Status.HostIP != "127.0.0.1" {
		t.Errorf("pod on %q phase %q hostIP %q: want on %s, Running, 127.0.0.1", p.Spec.NodeName, p.Status.Phase, p.Status.HostIP, tn.name)
	}
	if ip, err := netip.ParseAddr(p.Status.PodIP); err != nil || !tn.bridge.Subnet.Contains(ip) {
		t.Errorf("pod IP %q: want one of %s", p.Status.PodIP, tn.bridge.Subnet)
	}
	got := map[string]string{}
	for _, c := range p.Status.Conditions {
		got[c.Type] = c.Status
	}
	for _, c := range []string{"PodScheduled", "Initialized", "ContainersReady", "Ready"} {
		if got[c] != "True" {
			t.Errorf("condition %s = %q, want True (all: %v)", c, got[c], got)
		}
	}
	if cs := p.Status.ContainerStatuses; len(cs) != 1 || cs[0].Name != "app" || !cs[0].Ready || cs[0].State.Running == nil ||
		!strings.HasPrefix(cs[0].ContainerID, "containerd://") {
		t.Errorf("container statuses %+v: want app running and ready, with its containerd ID", cs)
	}
	if y := mustKubectl(t, "", "-n", ns, "get", "pod", "web", "-o", "yaml"); !strings.Contains(y, "containerStatuses:") || !strings.Contains(y, "podIP: "+p.Status.PodIP) {
		t.Errorf("kubectl get pod -o yaml lacks the status:\n%s", y)
	}

	// kubectl logs: the container's output, with the ConfigMap's and the Secret's values.
	want := []string{"started", "hello from a configmap", "password=s3cr3t"}
	waitFor(t, "the container's output in kubectl logs", time.Minute, func() (bool, error) {
		out, err := kubectl(t, "", "-n", ns, "logs", "web")
		return err == nil && slices.Equal(strings.Fields(strings.ReplaceAll(out, " ", "_")), []string{"started", "hello_from_a_configmap", "password=s3cr3t"}), fmt.Errorf("%q %v, want %q", out, err, want)
	})

	// kubectl exec: output, and the exit code.
	if out := mustKubectl(t, "", "-n", ns, "exec", "web", "-c", "app", "--", "cat", "/cfg/greeting"); out != "hello from a configmap" {
		t.Errorf("exec cat /cfg/greeting = %q", out)
	}
	_, err := kubectl(t, "", "-n", ns, "exec", "web", "--", "sh", "-c", "exit 3")
	if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Errorf("exec exit 3: %v, want kubectl to exit 3", err)
	}

	// Events recorded on the pod: the kubelet's, from podlife.
	var evs struct {
		Items []struct{ Reason string } `json:"items"`
	}
	waitFor(t, "Created and Started events on the pod", time.Minute, func() (bool, error) {
		out, err := kubectl(t, "", "-n", ns, "get", "events", "--field-selector", "involvedObject.name=web", "-o", "json")
		if err != nil {
			return false, err
		}
		if err := json.Unmarshal([]byte(out), &evs); err != nil {
			return false, err
		}
		var reasons []string
		for _, e := range evs.Items {
			reasons = append(reasons, e.Reason)
		}
		return slices.Contains(reasons, "Created") && slices.Contains(reasons, "Started"), fmt.Errorf("reasons %v", reasons)
	})

	// kubectl delete: preStop runs, then the pod disappears.
	mustKubectl(t, "", "-n", ns, "delete", "pod", "web", "--wait=false")
	waitGone(t, ns, "web", 90*time.Second)
	b, err := os.ReadFile(filepath.Join(hostDir, "events"))
	if err != nil || !strings.Contains(string(b), "app prestop") {
		t.Errorf("preStop marker: %q %v, want the hook to have run before the pod was gone", b, err)
	}

	// A pod podlife cannot run: ProviderFailed, naming the field, as a status and an event.
	bad := fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: bad}
spec:
%s  containers:
  - name: app
    image: %s
    volumeMounts: [{name: nfs, mountPath: /nfs}]
  volumes:
  - name: nfs
    nfs: {server: 192.0.2.1, path: /export}
`, scheduling(tn.name), testImage)
	mustKubectl(t, bad, "-n", ns, "apply", "-f", "-")
	waitFor(t, "pod bad ProviderFailed", 2*time.Minute, func() (bool, error) {
		out, err := kubectl(t, "", "-n", ns, "get", "pod", "bad", "-o", "jsonpath={.status.reason} {.status.message}")
		return err == nil && strings.HasPrefix(out, "ProviderFailed ") && strings.Contains(out, "spec.volumes[0].nfs"), fmt.Errorf("%q %v", out, err)
	})
	mustKubectl(t, "", "-n", ns, "delete", "pod", "bad", "--wait=false")
	waitGone(t, ns, "bad", 90*time.Second)
}

// TestNodeSeedExperiment: the two-container pod whose first container has a postStart hook of
// a few seconds starts as on a kubelet: the second container starts only after the first's
// hook returned, by the containers' own timestamps.
func TestNodeSeedExperiment(t *testing.T) {
	tn := startNode(t)
	ns := "seed-" + env.runID
	newNamespace(t, ns)
	const f = "/shared/timeline"
	const loop = `; trap "exit 0" TERM; while true; do sleep 0.2; done`
	manifest := fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: seed}
spec:
%s  terminationGracePeriodSeconds: 2
  containers:
  - name: first
    image: %[2]s
    command: [sh, -c, %[3]q]
    lifecycle:
      postStart:
        exec: {command: [sh, -c, %[4]q]}
    volumeMounts: [{name: shared, mountPath: /shared}]
  - name: second
    image: %[2]s
    command: [sh, -c, %[5]q]
    volumeMounts: [{name: shared, mountPath: /shared}]
  volumes:
  - name: shared
    emptyDir: {}
`, scheduling(tn.name), testImage, uptime(f, "first", "start")+loop, "sleep 3; "+uptime(f, "first", "hook-end"), uptime(f, "second", "start")+loop)
	mustKubectl(t, manifest, "-n", ns, "apply", "-f", "-")
	mustKubectl(t, "", "-n", ns, "wait", "--for=condition=Ready", "pod/seed", "--timeout=180s")
	out := mustKubectl(t, "", "-n", ns, "exec", "seed", "-c", "second", "--", "cat", f)
	at := map[string]float64{}
	var order []string
	for l := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		fields := strings.Fields(l)
		if len(fields) != 3 {
			t.Fatalf("timeline line %q", l)
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			t.Fatal(err)
		}
		at[fields[1]+" "+fields[2]] = v
		order = append(order, fields[1]+" "+fields[2])
	}
	t.Logf("timeline (host uptime, s):\n%s", out)
	if !slices.Equal(order, []string{"first start", "first hook-end", "second start"}) {
		t.Fatalf("order %v: want the second container started after the first's postStart returned", order)
	}
	if at["second start"] < at["first hook-end"] {
		t.Errorf("second started at %.2f, before the hook ended at %.2f", at["second start"], at["first hook-end"])
	}
	if at["first hook-end"]-at["first start"] < 2.9 {
		t.Errorf("hook ended %.2f s after the first container started, want its 3 s sleep", at["first hook-end"]-at["first start"])
	}
	mustKubectl(t, "", "-n", ns, "delete", "pod", "seed", "--wait=false")
	waitGone(t, ns, "seed", 90*time.Second)
}

// TestNodeDeployment: two podlife nodes and a Deployment of 4 replicas: the scheduler spreads
// them 2 and 2, all Running.
func TestNodeDeployment(t *testing.T) {
	a, b := startNode(t), startNode(t)
	ns := "deploy-" + env.runID
	newNamespace(t, ns)
	manifest := fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 4
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      nodeSelector: {podlife.io/node: "true", podlife.io/e2e: "%s"}
      tolerations: [{key: podlife.io/node, operator: Exists, effect: NoSchedule}]
      automountServiceAccountToken: false
      terminationGracePeriodSeconds: 2
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}
      containers:
      - name: app
        image: %s
        command: [sh, -c, 'trap "exit 0" TERM; while true; do sleep 0.2; done']
`, env.runID, testImage)
	mustKubectl(t, manifest, "-n", ns, "apply", "-f", "-")
	mustKubectl(t, "", "-n", ns, "rollout", "status", "deployment/web", "--timeout=240s")
	var list struct {
		Items []podJSON `json:"items"`
	}
	if err := json.Unmarshal([]byte(mustKubectl(t, "", "-n", ns, "get", "pods", "-l", "app=web", "-o", "json")), &list); err != nil {
		t.Fatal(err)
	}
	perNode := map[string]int{}
	for _, p := range list.Items {
		if p.Status.Phase != "Running" || p.Status.PodIP == "" {
			t.Errorf("pod on %s: phase %s IP %q, want Running with an IP", p.Spec.NodeName, p.Status.Phase, p.Status.PodIP)
		}
		perNode[p.Spec.NodeName]++
	}
	if len(list.Items) != 4 || perNode[a.name] != 2 || perNode[b.name] != 2 {
		t.Errorf("%d pods, per node %v: want 2 on %s and 2 on %s", len(list.Items), perNode, a.name, b.name)
	}
	mustKubectl(t, "", "-n", ns, "delete", "deployment", "web", "--wait=false")
	waitFor(t, "the deployment's pods gone", 3*time.Minute, func() (bool, error) {
		out, err := kubectl(t, "", "-n", ns, "get", "pods", "-l", "app=web", "-o", "name")
		return err == nil && strings.TrimSpace(out) == "", fmt.Errorf("%q %v", out, err)
	})
}
