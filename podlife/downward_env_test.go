package podlife_test

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube"
)

// downwardEnvManifest reads the pod's IPs, the host's and the pod's UID through env fieldRef,
// as Kubernetes' "should provide pod name, namespace and IP address as env vars", "should
// provide host IP as an env var" and "should provide pod UID as env vars" do; its init
// container checks them before the app starts.
const downwardEnvManifest = `apiVersion: v1
kind: Pod
metadata: {name: downward-env}
spec:
  terminationGracePeriodSeconds: 2
  initContainers:
  - name: init
    image: busybox
    command: [sh, -c, 'test -n "$POD_IP" && test -n "$POD_UID"']
    env:
    - {name: POD_IP, valueFrom: {fieldRef: {fieldPath: status.podIP}}}
    - {name: POD_UID, valueFrom: {fieldRef: {fieldPath: metadata.uid}}}
  containers:
  - name: app
    image: busybox
    command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 1; done"]
    env:
    - {name: POD_NAME, valueFrom: {fieldRef: {apiVersion: v1, fieldPath: metadata.name}}}
    - {name: POD_IP, valueFrom: {fieldRef: {apiVersion: v1, fieldPath: status.podIP}}}
    - {name: POD_IPS, valueFrom: {fieldRef: {fieldPath: status.podIPs}}}
    - {name: HOST_IP, valueFrom: {fieldRef: {apiVersion: v1, fieldPath: status.hostIP}}}
    - {name: HOST_IPS, valueFrom: {fieldRef: {fieldPath: status.hostIPs}}}
    - {name: POD_UID, valueFrom: {fieldRef: {apiVersion: v1, fieldPath: metadata.uid}}}
`

// envReader returns a function reading a variable in a container of pod (through exec, which
// runs with the container's environment).
func envReader(ctx context.Context, t *testing.T, pod *podlife.Pod, container string) func(name string) string {
	return func(name string) string {
		t.Helper()
		_, err := pod.Container(container)
		if err != nil {
			t.Fatal(err)
		}
		r, err := execOutput(ctx, pod, container, []string{"sh", "-c", `printf %s "$` + name + `"`})
		if err != nil || r.ExitCode != 0 {
			t.Fatalf("exec: %v (exit %d, %q)", err, r.ExitCode, r.Output)
		}
		return string(r.Output)
	}
}

// TestDownwardEnvInside: the pod's IP, the host's IPs (Config.HostIPs) and the pod's UID a
// manifest asks for through env fieldRef are what its containers read: the pod IP is the one
// its status reports, resolved when each container is created (after CNI ADD).
func TestDownwardEnvInside(t *testing.T) {
	hostIPs := []netip.Addr{netip.MustParseAddr("192.0.2.7"), netip.MustParseAddr("2001:db8::7")}
	h := newHarness(t, func(c *podlife.Config) { c.HostIPs = hostIPs })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := kube.Load(ctx, kube.Options{}, strings.NewReader(downwardEnvManifest))
	if err != nil {
		t.Fatal(err)
	}
	spec := res.Pods[0].Spec
	spec.Name = h.ns + "-dapi"
	for _, cs := range [][]podlife.ContainerSpec{spec.InitContainers, spec.Containers} {
		for i := range cs {
			cs[i].Image, cs[i].ImagePullPolicy = testImage, ""
		}
	}
	pod, err := h.rt.Run(ctx, spec)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	podIP := pod.Status().PodIP
	if !podIP.IsValid() {
		t.Fatalf("pod has no IP: %+v", pod.Status())
	}
	read := envReader(ctx, t, pod, "app")
	for _, tc := range []struct{ name, want string }{
		{"POD_NAME", "downward-env"}, // the manifest's name: the converter resolved it
		{"POD_IP", podIP.String()},
		{"POD_IPS", podIP.String()},
		{"HOST_IP", "192.0.2.7"},
		{"HOST_IPS", "192.0.2.7,2001:db8::7"},
		{"POD_UID", pod.UID()},
	} {
		if got := read(tc.name); got != tc.want {
			t.Errorf("$%s = %q, want %q", tc.name, got, tc.want)
		}
	}
	if pod.UID() == "" {
		t.Error("the pod has no UID")
	}
}

// TestDownwardEnvHostNetwork: with host networking the pod IP is the host's, as the kubelet
// reports it (Kubernetes' "should provide host IP and pod IP as an env var if pod uses host
// network"); by default the host IP is the host's first global unicast IPv4 address. A From
// podlife does not know is refused before anything runs.
func TestDownwardEnvHostNetwork(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	want := firstGlobalIPv4(t)
	spec := podlife.PodSpec{
		Name: h.ns + "-hostnet", HostNetwork: true, TerminationGracePeriod: ptr(2 * time.Second),
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage,
			Command: []string{"sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"},
			Env: []podlife.EnvVar{{Name: "HOST_IP", From: "status.hostIP"}, {Name: "POD_IP", From: "status.podIP"},
				{Name: "POD_UID", From: "metadata.uid"}},
		}},
	}
	bad := spec
	bad.Containers = []podlife.ContainerSpec{spec.Containers[0]}
	bad.Containers[0].Env = []podlife.EnvVar{{Name: "PHASE", From: "status.phase"}}
	if _, err := h.rt.Run(ctx, bad); !errors.Is(err, podlife.ErrInvalidSpec) || !strings.Contains(err.Error(), "containers[0].env[0].from") {
		t.Fatalf("Run with From status.phase: %v, want ErrInvalidSpec naming containers[0].env[0].from", err)
	}
	pod, err := h.rt.Run(ctx, spec)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	read := envReader(ctx, t, pod, "app")
	if got := read("HOST_IP"); got != want.String() {
		t.Errorf("$HOST_IP = %q, want %q", got, want)
	}
	if got := read("POD_IP"); got != want.String() {
		t.Errorf("$POD_IP = %q, want the host IP %q", got, want)
	}
	if got := read("POD_UID"); got != pod.UID() || got == "" {
		t.Errorf("$POD_UID = %q, want %q", got, pod.UID())
	}
}

// firstGlobalIPv4 is the host's first global unicast IPv4 address.
func firstGlobalIPv4(t *testing.T) netip.Addr {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && n.IP.IsGlobalUnicast() {
			ip, _ := netip.AddrFromSlice(n.IP.To4())
			return ip
		}
	}
	t.Skip("the host has no global IPv4 address")
	return netip.Addr{}
}
