package main

import (
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"

	"github.com/podlife/podlife/examples/node/internal/names"
	"github.com/podlife/podlife/podlife/kube"
)

// testPod is a pod podlife can run.
func testPod(ns, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + ns + "-" + name)},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "busybox:1"}}},
	}
}

// unitProvider is a provider with no runtime: what it must refuse, it refuses before using it.
func unitProvider(t *testing.T) (*provider, *record.FakeRecorder) {
	rec := record.NewFakeRecorder(100)
	pr := newProvider(nil, objectSource{}, rec, slog.New(slog.DiscardHandler), "", kube.Options{})
	pr.stateDir = t.TempDir()
	return pr, rec
}

// saveRaw writes a saved v1.Pod under a podlife name, as a node process would have.
func saveRaw(t *testing.T, pr *provider, name string, pod *corev1.Pod) []byte {
	t.Helper()
	b, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(pr.podsDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pr.podsDir(), name+".json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return b
}

// A pod whose podlife name is another pod's (saved by a node process, or running in this one)
// is refused, with a ProviderFailed event naming both, before anything is saved: the other
// pod's saved v1.Pod and entry are untouched.
func TestCreatePodRefusesTakenName(t *testing.T) {
	pr, rec := unitProvider(t)
	pod := testPod("kube", "system-x")
	name := names.Podlife(pod.Namespace, pod.Name)
	victim := testPod("kube-system", "x")
	saved := saveRaw(t, pr, name, victim)

	err := pr.CreatePod(t.Context(), pod)
	if !errors.Is(err, errNameTaken) || !strings.Contains(err.Error(), "kube-system/x") || !strings.Contains(err.Error(), "kube/system-x") {
		t.Errorf("CreatePod: %v, want errNameTaken naming both pods", err)
	}
	if b, err := os.ReadFile(filepath.Join(pr.podsDir(), name+".json")); err != nil || string(b) != string(saved) {
		t.Errorf("the victim's saved pod: %s (%v), want it untouched", b, err)
	}
	if ev := <-rec.Events; !strings.HasPrefix(ev, "Warning ProviderFailed ") || !strings.Contains(ev, "kube-system/x") {
		t.Errorf("event %q, want a ProviderFailed warning naming the owner", ev)
	}
	if len(pr.pods) != 0 || len(pr.byName) != 0 {
		t.Errorf("entries %v %v, want none", pr.pods, pr.byName)
	}

	// Taken by a pod of this process.
	pr, _ = unitProvider(t)
	other := &entry{pod: victim, name: name}
	pr.pods[key(victim.Namespace, victim.Name)] = other
	pr.byName[name] = other
	if err := pr.CreatePod(t.Context(), pod); !errors.Is(err, errNameTaken) {
		t.Errorf("CreatePod: %v, want errNameTaken", err)
	}
	if pr.byName[name] != other || len(pr.pods) != 1 {
		t.Errorf("entries %v %v, want the other pod's alone", pr.pods, pr.byName)
	}
	if _, err := os.Stat(filepath.Join(pr.podsDir(), name+".json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("saved pod: %v, want none saved", err)
	}
}

// A pod the node started before names.Podlife (its v1.Pod saved under names.Legacy) keeps its
// name, so that the upgraded node adopts or deletes it; a legacy name saved for another pod
// is not taken over.
func TestPodNameLegacy(t *testing.T) {
	pr, _ := unitProvider(t)
	old := testPod("default", "web")
	saveRaw(t, pr, names.Legacy("default", "web"), old)
	if n := pr.podName(old); n != "default-web-82b3ade9" {
		t.Errorf("podName of a pod saved under its legacy name = %q, want default-web-82b3ade9", n)
	}
	attacker, victim := legacyCollision(t, "col")
	saveRaw(t, pr, names.Legacy("col-x", victim), testPod("col-x", victim))
	if n := pr.podName(testPod("col", attacker)); n != names.Podlife("col", attacker) {
		t.Errorf("podName of a pod whose legacy name is another's = %q, want %q", n, names.Podlife("col", attacker))
	}
	if n := pr.podName(testPod("default", "new")); n != names.Podlife("default", "new") {
		t.Errorf("podName of a new pod = %q, want %q", n, names.Podlife("default", "new"))
	}
}
