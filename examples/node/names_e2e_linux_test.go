package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// TestNodeNamesDoNotCollide: a pod of one namespace whose name the old mapping (32-bit hash)
// gave the same podlife name as a running pod of another namespace. On main the second pod's
// start overwrote the first's saved v1.Pod, failed (the name was taken), then deleted that
// saved pod; now both run, each under its own podlife name, each with its own saved v1.Pod.
func TestNodeNamesDoNotCollide(t *testing.T) {
	tn := startNode(t)
	attackerNS := "pln-" + env.runID + "-col"
	victimNS := attackerNS + "-x"
	attacker, victim := legacyCollision(t, attackerNS)
	for _, ns := range []string{victimNS, attackerNS} {
		mustKubectl(t, "", "create", "namespace", ns)
		t.Cleanup(func() { _, _ = kubectl(t, "", "delete", "namespace", ns, "--wait=false") })
		waitServiceAccount(t, ns)
	}
	manifest := func(name string) string {
		return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: %s}
spec:
%s  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: %s
    command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 0.2; done"]
`, name, scheduling(tn.name), testImage)
	}
	mustKubectl(t, manifest(victim), "-n", victimNS, "apply", "-f", "-")
	mustKubectl(t, "", "-n", victimNS, "wait", "--for=condition=Ready", "pod/"+victim, "--timeout=180s")
	mustKubectl(t, manifest(attacker), "-n", attackerNS, "apply", "-f", "-")
	waitFor(t, "the second pod to run or fail", 3*time.Minute, func() (bool, error) {
		p := getPod(t, attackerNS, attacker)
		return p.Status.Phase == "Running" || p.Status.Phase == "Failed", fmt.Errorf("phase %q", p.Status.Phase)
	})
	if out := mustKubectl(t, "", "-n", attackerNS, "get", "pod", attacker, "-o", "jsonpath={.status.phase} {.status.reason} {.status.message}"); !strings.HasPrefix(out, "Running") {
		t.Errorf("second pod: %q, want Running under a name of its own", out)
	}
	if p := getPod(t, victimNS, victim); p.Status.Phase != "Running" || len(p.Status.ContainerStatuses) != 1 || p.Status.ContainerStatuses[0].RestartCount != 0 {
		t.Errorf("first pod: %+v, want it running undisturbed", p.Status)
	}
	// Each pod's v1.Pod saved under its own podlife name.
	entries, _ := os.ReadDir(filepath.Join(tn.stateDir, "k8s-pods"))
	var saved []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(tn.stateDir, "k8s-pods", e.Name()))
		var pod corev1.Pod
		if err != nil || json.Unmarshal(b, &pod) != nil {
			t.Errorf("saved pod %s: %v", e.Name(), err)
			continue
		}
		saved = append(saved, e.Name()+"="+key(pod.Namespace, pod.Name))
	}
	slices.Sort(saved)
	want := []string{podlifeName(attackerNS, attacker) + ".json=" + key(attackerNS, attacker), podlifeName(victimNS, victim) + ".json=" + key(victimNS, victim)}
	slices.Sort(want)
	if !slices.Equal(saved, want) {
		t.Errorf("saved pods %q, want %q", saved, want)
	}
	for _, p := range [][2]string{{attackerNS, attacker}, {victimNS, victim}} {
		mustKubectl(t, "", "-n", p[0], "delete", "pod", p[1], "--wait=false")
	}
	for _, p := range [][2]string{{attackerNS, attacker}, {victimNS, victim}} {
		waitGone(t, p[0], p[1], 90*time.Second)
	}
}
