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

	"github.com/podlife/podlife/examples/node/internal/names"
	corev1 "k8s.io/api/core/v1"
)

// TestNodeNamesDoNotCollide: a pod of one namespace whose name the old mapping (32-bit hash)
// gave the same podlife name as a running pod of another namespace. On main the second pod's
// start overwrote the first's saved v1.Pod, failed (the name was taken), then deleted that
// saved pod; now both run, each under its own podlife name, each with its own saved v1.Pod. A
// pod whose name is taken all the same is refused before anything is saved.
func TestNodeNamesDoNotCollide(t *testing.T) {
	tn := startNode(t)
	attackerNS := "pln-" + env.runID + "-col"
	victimNS := attackerNS + "-x"
	attacker, victim := legacyCollision(t, attackerNS)
	for _, ns := range []string{victimNS, attackerNS} {
		newNamespace(t, ns)
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
	var out string
	waitFor(t, "the second pod to run or fail", 3*time.Minute, func() (bool, error) {
		var err error
		out, err = kubectl(t, "", "-n", attackerNS, "get", "pod", attacker, "-o", "jsonpath={.status.phase} {.status.reason} {.status.message}")
		return err == nil && (strings.HasPrefix(out, "Running") || strings.Contains(out, "ProviderFailed")), fmt.Errorf("%q %v", out, err)
	})
	if !strings.HasPrefix(out, "Running") {
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
	want := []string{names.Podlife(attackerNS, attacker) + ".json=" + key(attackerNS, attacker), names.Podlife(victimNS, victim) + ".json=" + key(victimNS, victim)}
	slices.Sort(want)
	if !slices.Equal(saved, want) {
		t.Errorf("saved pods %q, want %q", saved, want)
	}

	// A podlife name already taken (here by a saved v1.Pod of another pod, as a collision
	// would leave it): the pod is refused with ProviderFailed naming both, and the saved pod
	// is untouched.
	squat := filepath.Join(tn.stateDir, "k8s-pods", names.Podlife(attackerNS, "squatted")+".json")
	planted := []byte(`{"metadata":{"namespace":"` + victimNS + `","name":"owner"}}`)
	if err := os.WriteFile(squat, planted, 0o600); err != nil {
		t.Fatal(err)
	}
	mustKubectl(t, manifest("squatted"), "-n", attackerNS, "apply", "-f", "-")
	waitFor(t, "pod squatted ProviderFailed", 2*time.Minute, func() (bool, error) {
		out, err := kubectl(t, "", "-n", attackerNS, "get", "pod", "squatted", "-o", "jsonpath={.status.reason} {.status.message}")
		return err == nil && strings.HasPrefix(out, "ProviderFailed ") && strings.Contains(out, "podlife name taken") &&
			strings.Contains(out, key(victimNS, "owner")), fmt.Errorf("%q %v", out, err)
	})
	if b, err := os.ReadFile(squat); err != nil || string(b) != string(planted) {
		t.Errorf("the saved pod of the name: %s (%v), want it untouched", b, err)
	}
	pods := [][2]string{{attackerNS, attacker}, {victimNS, victim}, {attackerNS, "squatted"}}
	for _, p := range pods {
		mustKubectl(t, "", "-n", p[0], "delete", "pod", p[1], "--wait=false")
	}
	for _, p := range pods {
		waitGone(t, p[0], p[1], 90*time.Second)
	}
}
