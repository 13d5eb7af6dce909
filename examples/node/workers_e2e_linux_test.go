package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/pkg/namespaces"
)

// TestNodeServesPastNeverStartingPods: pods whose start never finishes (an init container that
// always fails, with restartPolicy Always; a sidecar whose postStart hook always fails), more
// of them than virtual-kubelet has pod workers (runtime.NumCPU(), vknode.go), do not stop the
// node: a pod created after them runs, their status shows why they wait, deleting one of them
// completes, and once all are deleted nothing of them is left on the node.
func TestNodeServesPastNeverStartingPods(t *testing.T) {
	tn := startNode(t)
	ns := "e2e-workers-" + env.runID
	newNamespace(t, ns)

	app := fmt.Sprintf(`  - name: app
    image: %s
    command: [sh, -c, 'trap "exit 0" TERM; while true; do sleep 0.2; done']
`, testImage)
	initFails := func(name string) string {
		return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: %s}
spec:
%s  restartPolicy: Always
  terminationGracePeriodSeconds: 5
  initContainers:
  - name: init
    image: %s
    command: [sh, -c, 'exit 1']
  containers:
%s`, name, scheduling(tn.name), testImage, app)
	}
	sidecarFails := func(name string) string {
		return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: %s}
spec:
%s  terminationGracePeriodSeconds: 5
  initContainers:
  - name: sidecar
    image: %s
    restartPolicy: Always
    command: [sh, -c, 'trap "exit 0" TERM; while true; do sleep 0.2; done']
    lifecycle:
      postStart:
        exec: {command: [sh, -c, 'exit 1']}
  containers:
%s`, name, scheduling(tn.name), testImage, app)
	}
	workers := runtime.NumCPU() // the node's pod workers (vknode.go)
	var stuck []string
	for i := range workers + 1 {
		name := fmt.Sprintf("stuck-%d", i)
		manifest := initFails(name)
		if i%2 == 1 {
			manifest = sidecarFails(name)
		}
		mustKubectl(t, manifest, "-n", ns, "apply", "-f", "-")
		stuck = append(stuck, name)
	}
	// Every stuck pod is bound to the node before the next pod is created.
	for _, name := range stuck {
		waitFor(t, name+" bound to the node", 2*time.Minute, func() (bool, error) {
			out, err := kubectl(t, "", "-n", ns, "get", "pod", name, "-o", "jsonpath={.spec.nodeName}")
			return err == nil && out == tn.name, fmt.Errorf("nodeName %q %v", out, err)
		})
	}

	// A pod created after them runs.
	normal := fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: normal}
spec:
%s  terminationGracePeriodSeconds: 5
  containers:
%s`, scheduling(tn.name), app)
	mustKubectl(t, normal, "-n", ns, "apply", "-f", "-")
	mustKubectl(t, "", "-n", ns, "wait", "--for=condition=Ready", "pod/normal", "--timeout=120s")

	// The stuck pods' status says why they wait, as a kubelet's would: Pending, the failing
	// init container in CrashLoopBackOff, the app waiting in PodInitializing.
	waitFor(t, "stuck-0 in CrashLoopBackOff", 2*time.Minute, func() (bool, error) {
		out, err := kubectl(t, "", "-n", ns, "get", "pod", "stuck-0", "-o",
			"jsonpath={.status.phase} {.status.initContainerStatuses[0].state.waiting.reason} {.status.containerStatuses[0].state.waiting.reason}")
		return err == nil && out == "Pending CrashLoopBackOff PodInitializing", fmt.Errorf("%q %v, want Pending CrashLoopBackOff PodInitializing", out, err)
	})
	waitFor(t, "stuck-1's sidecar restarted", 2*time.Minute, func() (bool, error) {
		out, err := kubectl(t, "", "-n", ns, "get", "pod", "stuck-1", "-o",
			"jsonpath={.status.phase} {.status.containerStatuses[0].state.waiting.reason} {.status.initContainerStatuses[0].restartCount}")
		f := strings.Fields(out)
		return err == nil && len(f) == 3 && f[0] == "Pending" && f[1] == "PodInitializing" && f[2] != "0",
			fmt.Errorf("%q %v, want Pending PodInitializing and a restart count", out, err)
	})

	// The node process stops (SIGTERM) while those starts go on, and comes back: the pod that
	// started is adopted as it runs, the interrupted starts are replaced and go on in the
	// background again.
	before := getPod(t, ns, "normal")
	tn.stop(t)
	tn.start(t)
	waitFor(t, "the restarted node to adopt normal and replace stuck-0", 2*time.Minute, func() (bool, error) {
		b, err := os.ReadFile(tn.log)
		return err == nil && strings.Contains(string(b), "pod adopted") && strings.Contains(string(b), "pod replaced"), err
	})
	waitFor(t, "stuck-0 in CrashLoopBackOff again", 2*time.Minute, func() (bool, error) {
		out, err := kubectl(t, "", "-n", ns, "get", "pod", "stuck-0", "-o",
			"jsonpath={.status.phase} {.status.initContainerStatuses[0].state.waiting.reason}")
		return err == nil && out == "Pending CrashLoopBackOff", fmt.Errorf("%q %v", out, err)
	})
	after := getPod(t, ns, "normal")
	if cs := after.Status.ContainerStatuses; after.Status.Phase != "Running" || len(cs) != 1 || cs[0].State.Running == nil ||
		cs[0].State.Running.StartedAt != before.Status.ContainerStatuses[0].State.Running.StartedAt {
		t.Errorf("normal after the restart: %s %+v, want Running, the same container", after.Status.Phase, cs)
	}

	// Deleting a stuck pod completes.
	mustKubectl(t, "", "-n", ns, "delete", "pod", "stuck-1", "--wait=false")
	waitGone(t, ns, "stuck-1", 90*time.Second)

	// A pod deleted while its start hangs (a postStart hook that never returns) is stopped as
	// the kubelet stops it: the running container's preStop hook runs, within the grace period.
	hostDir := t.TempDir()
	hanging := fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: hanging}
spec:
%s  terminationGracePeriodSeconds: 5
  containers:
  - name: app
    image: %s
    command: [sh, -c, 'trap "exit 0" TERM; while true; do sleep 0.2; done']
    volumeMounts:
    - {name: host, mountPath: /host}
    lifecycle:
      preStop:
        exec: {command: [sh, -c, %q]}
  - name: hook
    image: %s
    command: [sh, -c, 'trap "exit 0" TERM; while true; do sleep 0.2; done']
    lifecycle:
      postStart:
        exec: {command: [sleep, "3600"]}
  volumes:
  - name: host
    hostPath: {path: %s, type: Directory}
`, scheduling(tn.name), testImage, uptime("/host/events", "app", "prestop"), testImage, hostDir)
	mustKubectl(t, hanging, "-n", ns, "apply", "-f", "-")
	waitFor(t, "hanging's app running, its hook container starting", 2*time.Minute, func() (bool, error) {
		out, err := kubectl(t, "", "-n", ns, "get", "pod", "hanging", "-o",
			`jsonpath={.status.containerStatuses[?(@.name=="app")].started} {.status.containerStatuses[?(@.name=="hook")].started}`)
		return err == nil && out == "true false", fmt.Errorf("%q %v, want app started, hook not", out, err)
	})
	mustKubectl(t, "", "-n", ns, "delete", "pod", "hanging", "--wait=false")
	waitGone(t, ns, "hanging", 60*time.Second)
	if b, err := os.ReadFile(filepath.Join(hostDir, "events")); err != nil || !strings.Contains(string(b), "app prestop") {
		t.Errorf("hanging's preStop marker: %q %v, want the hook to have run", b, err)
	}

	// A start that cannot go on once admitted (the image is missing, pull policy Never) waits as
	// on a kubelet (podlife's ImagePullBackOff): Pending, the container in ErrImageNeverPull or
	// ImagePullBackOff naming the image, tried again; deleting it completes.
	missing := fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: missing}
spec:
%s  terminationGracePeriodSeconds: 5
  containers:
  - name: app
    image: podlife.test/missing:1
    imagePullPolicy: Never
`, scheduling(tn.name))
	mustKubectl(t, missing, "-n", ns, "apply", "-f", "-")
	waitFor(t, "missing waiting for its image", 2*time.Minute, func() (bool, error) {
		out, err := kubectl(t, "", "-n", ns, "get", "pod", "missing", "-o",
			"jsonpath={.status.phase} {.status.containerStatuses[0].state.waiting.reason} {.status.containerStatuses[0].state.waiting.message}")
		waiting := strings.HasPrefix(out, "Pending ErrImageNeverPull ") || strings.HasPrefix(out, "Pending ImagePullBackOff ")
		return err == nil && waiting && strings.Contains(out, "podlife.test/missing:1"),
			fmt.Errorf("%q %v, want Pending, ErrImageNeverPull or ImagePullBackOff naming the image", out, err)
	})
	mustKubectl(t, "", "-n", ns, "delete", "pod", "missing", "--wait=false")
	waitGone(t, ns, "missing", 60*time.Second)

	// Deleting all of them: nothing of them is left on the node (podlife pods, saved pods,
	// containerd containers), while the node runs.
	mustKubectl(t, "", "-n", ns, "delete", "pod", "--all", "--wait=false")
	for _, name := range append(stuck, "normal") {
		waitGone(t, ns, name, 90*time.Second)
	}
	nctx := namespaces.WithNamespace(context.Background(), tn.ns)
	waitFor(t, "nothing left of the deleted pods on the node", time.Minute, func() (bool, error) {
		var left []string
		for _, dir := range []string{filepath.Join(tn.stateDir, "pods"), filepath.Join(tn.stateDir, "k8s-pods")} {
			entries, err := os.ReadDir(dir)
			if err != nil && !os.IsNotExist(err) {
				return false, err
			}
			for _, e := range entries {
				left = append(left, filepath.Join(filepath.Base(dir), e.Name()))
			}
		}
		cs, err := env.client.ContainerService().List(nctx)
		if err != nil {
			return false, err
		}
		for _, c := range cs {
			left = append(left, "container "+c.ID)
		}
		return len(left) == 0, fmt.Errorf("left: %s", strings.Join(left, ", "))
	})
}
