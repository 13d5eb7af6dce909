package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestNodeVolumesFollowUpdates has the shape of the upstream "ConfigMap updates should be
// reflected in volume" and "Downward API volume should update labels on modification": a
// configMap volume shows the ConfigMap's new data once it is updated in the API server, and a
// downwardAPI labels file the pod's new label, each within a bound far above the node's sync
// period (the kubelet's worst case is about a minute; upstream waits minutes).
func TestNodeVolumesFollowUpdates(t *testing.T) {
	tn := startNode(t)
	ns := "volsync-" + env.runID
	newNamespace(t, ns)
	configMap := func(v string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata:\n  greeting: %s\n", v)
	}
	mustKubectl(t, configMap("value-1"), "-n", ns, "apply", "-f", "-")
	manifest := fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: follower, labels: {stage: one}}
spec:
%s  terminationGracePeriodSeconds: 2
  containers:
  - name: app
    image: %s
    command: [sh, -c, 'trap "exit 0" TERM; while true; do sleep 0.2; done']
    volumeMounts:
    - {name: cfg, mountPath: /cfg}
    - {name: podinfo, mountPath: /podinfo}
  volumes:
  - name: cfg
    configMap: {name: settings}
  - name: podinfo
    downwardAPI:
      items:
      - {path: labels, fieldRef: {fieldPath: metadata.labels}}
`, scheduling(tn.name), testImage)
	mustKubectl(t, manifest, "-n", ns, "apply", "-f", "-")
	mustKubectl(t, "", "-n", ns, "wait", "--for=condition=Ready", "pod/follower", "--timeout=180s")
	read := func(path string) (string, error) {
		out, err := kubectl(t, "", "-n", ns, "exec", "follower", "--", "cat", path)
		return strings.TrimSpace(out), err
	}
	if got, err := read("/cfg/greeting"); got != "value-1" || err != nil {
		t.Fatalf("/cfg/greeting = %q (%v), want value-1", got, err)
	}
	if got, err := read("/podinfo/labels"); got != `stage="one"` || err != nil {
		t.Fatalf("/podinfo/labels = %q (%v), want stage=\"one\"", got, err)
	}

	start := time.Now()
	mustKubectl(t, configMap("value-2"), "-n", ns, "apply", "-f", "-")
	waitFor(t, "the configMap volume's new data", 3*time.Minute, func() (bool, error) {
		got, err := read("/cfg/greeting")
		return got == "value-2", fmt.Errorf("%q %v", got, err)
	})
	t.Logf("configMap update seen in the volume after %v", time.Since(start).Round(time.Millisecond))

	start = time.Now()
	mustKubectl(t, "", "-n", ns, "label", "pod", "follower", "stage=two", "--overwrite")
	waitFor(t, "the downwardAPI labels file's new label", 3*time.Minute, func() (bool, error) {
		got, err := read("/podinfo/labels")
		return got == `stage="two"`, fmt.Errorf("%q %v", got, err)
	})
	t.Logf("label change seen in the volume after %v", time.Since(start).Round(time.Millisecond))
}

// TestNodeWaitsForMissingSecret: a restartPolicy Never pod whose env needs a Secret that does
// not exist yet stays Pending, its container Waiting with the kubelet's
// CreateContainerConfigError and 'secret "later" not found' (an optional ConfigMap volume
// that does not exist either holds nothing up), and runs with the Secret's value once it is
// created.
func TestNodeWaitsForMissingSecret(t *testing.T) {
	tn := startNode(t)
	ns := "missing-" + env.runID
	newNamespace(t, ns)
	manifest := fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: patient}
spec:
%s  terminationGracePeriodSeconds: 2
  restartPolicy: Never
  containers:
  - name: app
    image: %s
    command: [sh, -c, 'echo "password=$PASSWORD"; trap "exit 0" TERM; while true; do sleep 0.2; done']
    env:
    - name: PASSWORD
      valueFrom: {secretKeyRef: {name: later, key: password}}
    volumeMounts:
    - {name: extra, mountPath: /extra}
  volumes:
  - name: extra
    configMap: {name: never-created, optional: true}
`, scheduling(tn.name), testImage)
	mustKubectl(t, manifest, "-n", ns, "apply", "-f", "-")
	waiting := func() (string, error) {
		return kubectl(t, "", "-n", ns, "get", "pod", "patient", "-o",
			`jsonpath={.status.phase}|{.status.containerStatuses[0].state.waiting.reason}|{.status.containerStatuses[0].state.waiting.message}`)
	}
	want := `Pending|CreateContainerConfigError|secret "later" not found`
	waitFor(t, "the pod waiting for its Secret", 2*time.Minute, func() (bool, error) {
		out, err := waiting()
		return out == want, fmt.Errorf("%q %v", out, err)
	})
	// Still so a while later: not Failed, not retried into another state.
	time.Sleep(5 * time.Second) // an observation window, not a synchronisation
	if out, err := waiting(); out != want || err != nil {
		t.Fatalf("after 5s: %q (%v), want %q", out, err, want)
	}

	mustKubectl(t, "apiVersion: v1\nkind: Secret\nmetadata: {name: later}\nstringData:\n  password: arrived\n", "-n", ns, "apply", "-f", "-")
	mustKubectl(t, "", "-n", ns, "wait", "--for=condition=Ready", "pod/patient", "--timeout=180s")
	waitFor(t, "the Secret's value in the container's env", time.Minute, func() (bool, error) {
		out, err := kubectl(t, "", "-n", ns, "logs", "patient")
		return strings.Contains(out, "password=arrived"), fmt.Errorf("%q %v", out, err)
	})
}
