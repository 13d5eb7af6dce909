package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKubectlTop: metrics-server, as a cluster runs it, scrapes this node's /metrics/resource
// and `kubectl top` prints real values: a pod burning CPU at over 100m (generous: this machine
// is shared), the node at a non-zero CPU and memory.
//
// metrics-server (hack/build-metrics-server.sh, cached next to the control plane's binaries;
// the test is skipped when it cannot be built) runs as a host process on the test's proxyable
// address, registered as the aggregated API v1beta1.metrics.k8s.io behind a Service without a
// selector and its Endpoints, as upstream's local-up-cluster does for an API server outside
// the cluster. It reaches the kubelet API at the node's InternalIP with the admin's token,
// not verifying the node's self-generated serving certificate (--kubelet-insecure-tls).
func TestKubectlTop(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test: -short")
	}
	ms := metricsServerBinary(t)
	ip := proxyableAddr(t)
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	tn := startNodeWith(t, "podlife.io/node=true:NoSchedule", "--node-ip", ip, "--listen", fmt.Sprintf("%s:%d", ip, port))
	msPort, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	startMetricsServer(t, ms, ip, msPort)

	ns := "e2e-top-" + env.runID
	newNamespace(t, ns)
	mustKubectl(t, fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: burner}
spec:
%s  terminationGracePeriodSeconds: 1
  containers:
  - name: burn
    image: %s
    command: [sh, -c, 'while :; do :; done']
`, scheduling(tn.name), testImage), "-n", ns, "apply", "-f", "-")
	mustKubectl(t, "", "-n", ns, "wait", "--for=condition=Ready", "pod/burner", "--timeout=180s")

	// metrics-server rates CPU from two scrapes a resolution (10 s) apart: the first values
	// come 20 to 30 s after the pod starts.
	start := time.Now()
	var podLine string
	waitFor(t, "kubectl top pod burner over 100m", 3*time.Minute, func() (bool, error) {
		out, err := kubectl(t, "", "-n", ns, "top", "pod", "burner", "--no-headers")
		if err != nil {
			return false, err
		}
		podLine = strings.TrimSpace(out)
		f := strings.Fields(podLine)
		return len(f) >= 3 && milliCPU(f[1]) > 100, fmt.Errorf("%q", out)
	})
	t.Logf("kubectl top pod after %v: %s", time.Since(start).Round(time.Second), podLine)
	var nodeLine string
	waitFor(t, "kubectl top node "+tn.name+" non-zero", time.Minute, func() (bool, error) {
		out, err := kubectl(t, "", "top", "node", tn.name, "--no-headers")
		if err != nil {
			return false, err
		}
		nodeLine = strings.TrimSpace(out)
		f := strings.Fields(nodeLine)
		return len(f) >= 5 && f[0] == tn.name && milliCPU(f[1]) > 0 && !strings.HasPrefix(f[3], "0"), fmt.Errorf("%q", out)
	})
	t.Logf("kubectl top node: %s", nodeLine)
	// The containers' view, as kubectl top pod --containers prints it.
	out := mustKubectl(t, "", "-n", ns, "top", "pod", "burner", "--containers", "--no-headers")
	if f := strings.Fields(out); len(f) < 4 || f[0] != "burner" || f[1] != "burn" || milliCPU(f[2]) <= 0 {
		t.Errorf("kubectl top pod --containers: %q, want the burn container's CPU", out)
	}
}

// milliCPU parses kubectl top's CPU column ("1234m", "2"), -1 if it is not a quantity.
func milliCPU(s string) int64 {
	if v, ok := strings.CutSuffix(s, "m"); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return -1
		}
		return n
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return -1
	}
	return n * 1000
}

// metricsServerBinary returns metrics-server from the control plane's binaries' directory,
// building it there first (hack/build-metrics-server.sh); it skips the test when that fails
// (no module proxy, say).
func metricsServerBinary(t *testing.T) string {
	t.Helper()
	dir := filepath.Dir(env.kubectl)
	bin := filepath.Join(dir, "metrics-server")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	start := time.Now()
	out, err := exec.Command("hack/build-metrics-server.sh", dir).CombinedOutput()
	if err != nil {
		t.Skipf("metrics-server cannot be built (hack/build-metrics-server.sh %s): %v\n%s", dir, err, out)
	}
	t.Logf("built metrics-server in %v", time.Since(start).Round(time.Second))
	return bin
}

// startMetricsServer runs metrics-server on ip:port with the admin's kubeconfig and registers
// it as v1beta1.metrics.k8s.io; the cleanup removes both and waits for the process to end.
func startMetricsServer(t *testing.T, bin, ip string, port int) {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(env.dir, "metrics-server.log")
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	kc := env.cp.kubeconfig
	cmd := exec.Command(bin,
		"--kubeconfig", kc, "--authentication-kubeconfig", kc, "--authorization-kubeconfig", kc,
		"--bind-address", ip, "--secure-port", strconv.Itoa(port), "--cert-dir", dir, // its own serving certificate
		"--kubelet-insecure-tls", "--kubelet-preferred-address-types", "InternalIP", "--kubelet-use-node-status-port",
		"--metric-resolution", "10s", "--kubelet-request-timeout", "5s", "-v", "2")
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	objects := fmt.Sprintf(`apiVersion: v1
kind: Service
metadata: {name: metrics-server, namespace: kube-system}
spec:
  ports:
  - {name: https, port: 443, targetPort: %[2]d}
---
apiVersion: v1
kind: Endpoints
metadata: {name: metrics-server, namespace: kube-system}
subsets:
- addresses:
  - ip: %[1]s
  ports:
  - {name: https, port: %[2]d}
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1beta1.metrics.k8s.io}
spec:
  service: {name: metrics-server, namespace: kube-system, port: 443}
  group: metrics.k8s.io
  version: v1beta1
  insecureSkipTLSVerify: true
  groupPriorityMinimum: 100
  versionPriority: 100
`, ip, port)
	t.Cleanup(func() {
		_, _ = kubectl(t, objects, "delete", "-f", "-", "--wait=false")
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("metrics-server did not stop on SIGTERM")
		}
		if t.Failed() {
			b, _ := os.ReadFile(log)
			t.Logf("metrics-server log:\n%s", b)
		}
	})
	mustKubectl(t, objects, "apply", "-f", "-")
	waitFor(t, "APIService v1beta1.metrics.k8s.io Available", 2*time.Minute, func() (bool, error) {
		select {
		case <-done:
			b, _ := os.ReadFile(log)
			t.Fatalf("metrics-server exited:\n%s", b)
		default:
		}
		out, err := kubectl(t, "", "get", "apiservice", "v1beta1.metrics.k8s.io", "-o",
			`jsonpath={.status.conditions[?(@.type=="Available")].status} {.status.conditions[?(@.type=="Available")].message}`)
		return err == nil && strings.HasPrefix(out, "True"), fmt.Errorf("%q %v", out, err)
	})
}
