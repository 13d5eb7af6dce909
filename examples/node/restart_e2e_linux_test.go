package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNodeRestartAdopts: a node process killed with SIGKILL and started again adopts its pod:
// the container is not started again (one start in the file it writes, the same startedAt),
// restartCount stays 0, the pod stays Running, and deleting it afterwards runs its preStop.
func TestNodeRestartAdopts(t *testing.T) {
	tn := startNode(t)
	ns := "e2e-restart-" + env.runID
	newNamespace(t, ns)
	hostDir := t.TempDir()
	manifest := fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: survivor}
spec:
%s  terminationGracePeriodSeconds: 20
  containers:
  - name: app
    image: %s
    command: [sh, -c, %q]
    volumeMounts:
    - {name: host, mountPath: /host}
    lifecycle:
      preStop:
        exec: {command: [sh, -c, %q]}
  volumes:
  - name: host
    hostPath: {path: %s, type: Directory}
`, scheduling(tn.name), testImage, uptime("/host/events", "app", "start")+`; trap "exit 0" TERM; while true; do sleep 0.2; done`, uptime("/host/events", "app", "prestop"), hostDir)
	mustKubectl(t, manifest, "-n", ns, "apply", "-f", "-")
	doomedDir := t.TempDir()
	doomed := strings.ReplaceAll(strings.ReplaceAll(manifest, "survivor", "doomed"), hostDir, doomedDir)
	mustKubectl(t, doomed, "-n", ns, "apply", "-f", "-")
	mustKubectl(t, "", "-n", ns, "wait", "--for=condition=Ready", "pod/survivor", "pod/doomed", "--timeout=180s")
	before := getPod(t, ns, "survivor")
	if cs := before.Status.ContainerStatuses; len(cs) != 1 || cs[0].State.Running == nil {
		t.Fatalf("container statuses %+v: want app running", cs)
	}

	// SIGKILL: nothing of the node process gets to run.
	_ = tn.cmd.Process.Kill()
	<-tn.done
	tn.cmd = nil
	// A pod deleted while the node is down: stopped (preStop) and removed once it is back.
	mustKubectl(t, "", "-n", ns, "delete", "pod", "doomed", "--wait=false")
	tn.start(t)
	waitGone(t, ns, "doomed", 2*time.Minute)
	if b, err := os.ReadFile(filepath.Join(doomedDir, "events")); err != nil || !strings.Contains(string(b), "app prestop") {
		t.Errorf("doomed's preStop marker: %q %v, want the hook to have run", b, err)
	}
	waitFor(t, "the restarted node to adopt the pod", 2*time.Minute, func() (bool, error) {
		b, err := os.ReadFile(tn.log)
		return err == nil && strings.Count(string(b), "pod adopted") >= 1, err
	})
	// Give the new process a few status syncs to report anything that changed.
	time.Sleep(8 * time.Second)
	after := getPod(t, ns, "survivor")
	cs := after.Status.ContainerStatuses
	if after.Status.Phase != "Running" || len(cs) != 1 || cs[0].State.Running == nil || cs[0].RestartCount != 0 ||
		cs[0].State.Running.StartedAt != before.Status.ContainerStatuses[0].State.Running.StartedAt {
		t.Errorf("after the restart: phase %s statuses %+v, want Running, restartCount 0, startedAt %s", after.Status.Phase, cs,
			before.Status.ContainerStatuses[0].State.Running.StartedAt)
	}
	if out := mustKubectl(t, "", "-n", ns, "get", "pod", "survivor", "--no-headers"); !strings.Contains(out, "Running") {
		t.Errorf("kubectl get pod: %q, want Running", out)
	}
	b, _ := os.ReadFile(filepath.Join(hostDir, "events"))
	if n := strings.Count(string(b), "app start"); n != 1 {
		t.Errorf("container starts %d (%q), want 1: the container was started again", n, b)
	}

	// Deleting it afterwards: the adopted pod's preStop runs.
	mustKubectl(t, "", "-n", ns, "delete", "pod", "survivor", "--wait=false")
	waitGone(t, ns, "survivor", 90*time.Second)
	b, err := os.ReadFile(filepath.Join(hostDir, "events"))
	if err != nil || !strings.Contains(string(b), "app prestop") {
		t.Errorf("preStop marker: %q %v, want the hook to have run", b, err)
	}
}
