package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
)

// The agent restarted: web's manifest is unchanged, db's changed while the agent was down,
// old's was removed, and new.yaml was added.
func Example_plan() {
	desired := map[string]desiredPod{
		"web-node1": {Name: "web-node1", File: "web.yaml", Hash: "h1"},
		"db-node1":  {Name: "db-node1", File: "db.yaml", Hash: "h3"},
		"new-node1": {Name: "new-node1", File: "new.yaml", Hash: "h4"},
	}
	actual := map[string]actualPod{
		"web-node1": {Name: "web-node1", File: "web.yaml", Hash: "h1", State: stateFound},
		"db-node1":  {Name: "db-node1", File: "db.yaml", Hash: "h2", State: stateFound},
		"old-node1": {Name: "old-node1", File: "old.yaml", Hash: "h5", State: stateFound},
	}
	for _, a := range plan(time.Now(), desired, nil, actual) {
		fmt.Println(a.Kind, a.Name)
	}
	// Output:
	// replace db-node1
	// run new-node1
	// remove old-node1
	// adopt web-node1
}

func desiredSet(pods ...desiredPod) map[string]desiredPod {
	m := map[string]desiredPod{}
	for _, p := range pods {
		m[p.Name] = p
	}
	return m
}

func actualSet(pods ...actualPod) map[string]actualPod {
	m := map[string]actualPod{}
	for _, p := range pods {
		m[p.Name] = p
	}
	return m
}

// summary prints a plan as "kind name" lines, with the hash the action works towards.
func summary(acts []action) []string {
	var out []string
	for _, a := range acts {
		s := string(a.Kind) + " " + a.Name
		if a.Desired != nil {
			s += "@" + a.Desired.Hash
		}
		out = append(out, s)
	}
	return out
}

func TestPlan(t *testing.T) {
	now := time.Date(2026, 11, 23, 20, 0, 0, 0, time.UTC)
	d := func(name, file, hash string) desiredPod { return desiredPod{Name: name, File: file, Hash: hash} }
	for _, tc := range []struct {
		name    string
		desired map[string]desiredPod
		broken  map[string]bool
		actual  map[string]actualPod
		want    []string
	}{
		{"nothing", nil, nil, nil, nil},
		{"new manifests run, in name order",
			desiredSet(d("b", "b.yaml", "1"), d("a", "a.yaml", "2")), nil, nil,
			[]string{"run a@2", "run b@1"}},
		{"unchanged managed pods are left alone",
			desiredSet(d("a", "a.yaml", "1")), nil,
			actualSet(actualPod{Name: "a", File: "a.yaml", Hash: "1", State: stateManaged}), nil},
		{"a changed manifest replaces its pod",
			desiredSet(d("a", "a.yaml", "2")), nil,
			actualSet(actualPod{Name: "a", File: "a.yaml", Hash: "1", State: stateManaged}),
			[]string{"replace a@2"}},
		{"a removed manifest removes its pod",
			nil, nil,
			actualSet(actualPod{Name: "a", File: "a.yaml", Hash: "1", State: stateManaged}),
			[]string{"remove a"}},
		{"a broken manifest keeps the pod last started from it; others go on",
			desiredSet(d("b", "b.yaml", "3")), map[string]bool{"a.yaml": true},
			actualSet(actualPod{Name: "a", File: "a.yaml", Hash: "1", State: stateManaged}),
			[]string{"run b@3"}},
		{"pods found at start are adopted when unchanged, replaced when changed, removed when gone",
			desiredSet(d("a", "a.yaml", "1"), d("b", "b.yaml", "9")), nil,
			actualSet(
				actualPod{Name: "a", File: "a.yaml", Hash: "1", State: stateFound},
				actualPod{Name: "b", File: "b.yaml", Hash: "2", State: stateFound},
				actualPod{Name: "c", File: "c.yaml", Hash: "3", State: stateFound}),
			[]string{"adopt a@1", "replace b@9", "remove c"}},
		{"an unmanaged pod is left alone until its manifest changes",
			desiredSet(d("a", "a.yaml", "1"), d("b", "b.yaml", "5")), nil,
			actualSet(
				actualPod{Name: "a", File: "a.yaml", Hash: "1", State: stateUnmanaged},
				actualPod{Name: "b", File: "b.yaml", Hash: "4", State: stateUnmanaged}),
			[]string{"replace b@5"}},
		{"busy pods are left to their operation unless its target is outdated",
			desiredSet(d("a", "a.yaml", "1"), d("b", "b.yaml", "2"), d("e", "e.yaml", "1")), nil,
			actualSet(
				actualPod{Name: "a", File: "a.yaml", Hash: "1", Op: actRun},
				actualPod{Name: "b", File: "b.yaml", Hash: "1", Op: actReplace},
				actualPod{Name: "c", File: "c.yaml", Hash: "1", Op: actAdopt},
				actualPod{Name: "d", File: "d.yaml", Hash: "1", Op: actRun, Cancelled: true},
				actualPod{Name: "e", File: "e.yaml", Hash: "2", Op: actRun, Cancelled: true}),
			[]string{"cancel b", "cancel c"}},
		{"a removal is never cancelled; a pod asked for again runs once it is done",
			desiredSet(d("a", "a.yaml", "1"), d("b", "b.yaml", "2")), nil,
			actualSet(
				actualPod{Name: "a", File: "a.yaml", Hash: "1", Op: actRemove},
				actualPod{Name: "b", File: "b.yaml", Hash: "1", Op: actRemove},
				actualPod{Name: "c", File: "c.yaml", Hash: "1", Op: actRemove}),
			nil},
		{"a failed start is retried once its back-off passed",
			desiredSet(d("a", "a.yaml", "1"), d("b", "b.yaml", "1"), d("c", "c.yaml", "2")), nil,
			actualSet(
				actualPod{Name: "a", File: "a.yaml", Hash: "1", State: stateFailed, RetryAt: now},
				actualPod{Name: "b", File: "b.yaml", Hash: "1", State: stateFailed, RetryAt: now.Add(time.Second)},
				actualPod{Name: "c", File: "c.yaml", Hash: "1", State: stateFailed, RetryAt: now.Add(time.Hour)}),
			[]string{"run a@1", "replace c@2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := summary(plan(now, tc.desired, tc.broken, tc.actual))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("plan = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestManifestHash(t *testing.T) {
	a := manifestHash([]byte("# a comment\napiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers: [{name: c, image: i}]\n"))
	b := manifestHash([]byte(`{"kind":"Pod","apiVersion":"v1","spec":{"containers":[{"image":"i","name":"c"}]},"metadata":{"name":"x"}}`))
	c := manifestHash([]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers: [{name: c, image: j}]\n"))
	if a != b {
		t.Errorf("the same pod in YAML with a comment and in JSON: hashes %s and %s differ", a, b)
	}
	if a == c {
		t.Errorf("another image, same hash %s", a)
	}
	if x, y := manifestHash([]byte("a: [")), manifestHash([]byte("a: [ ")); x == y {
		t.Errorf("undecodable manifests hash by their text: %s == %s", x, y)
	}
}

// A directory: dotfiles and subdirectories are not manifests, a bad manifest is reported
// (its pods, if any ran, are kept), a duplicate pod name is reported on the second file.
func TestScan(t *testing.T) {
	dir := t.TempDir()
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: %s}\nspec:\n  containers: [{name: c, image: busybox:1}]\n"
	files := map[string]string{
		"a.yaml":         fmt.Sprintf(pod, "web"),
		"b.json":         `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"db"},"spec":{"containers":[{"name":"c","image":"busybox:1"}]}}`,
		"c.yaml":         fmt.Sprintf(pod, "web"),
		"d.yaml":         "apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\nspec:\n  containers: [{name: c, image: busybox:1, bogus: 1}]\n",
		".hidden.yaml":   fmt.Sprintf(pod, "hidden"),
		".status/x.yaml": fmt.Sprintf(pod, "status"),
		"e.yaml~":        fmt.Sprintf(pod, "Not_A_Name"),
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := &source{dir: dir, suffix: "-node1"}
	desired, results, broken, err := src.scan(context.Background(), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for n, d := range desired {
		names = append(names, n+"<"+d.File)
		if d.Spec.Name != n {
			t.Errorf("pod %s has spec name %s", n, d.Spec.Name)
		}
	}
	if want := map[string]bool{"web-node1<a.yaml": true, "db-node1<b.json": true}; len(names) != len(want) || !want[names[0]] || !want[names[1]] {
		t.Errorf("desired %v, want %v", names, want)
	}
	if len(results) != 5 {
		t.Errorf("results for %d files, want 5 (no dotfiles, no subdirectories): %v", len(results), results)
	}
	wantBroken := map[string]bool{"c.yaml": true, "d.yaml": true, "e.yaml~": true}
	if !reflect.DeepEqual(broken, wantBroken) {
		t.Errorf("broken %v, want %v", broken, wantBroken)
	}
	if e := results["d.yaml"].Error; !strings.Contains(e, "d.yaml#0 Pod/bad: spec.containers[0].bogus") {
		t.Errorf("d.yaml: %q, want the file, document and field named", e)
	}
	if e := results["c.yaml"].Error; e != "pod web-node1 is declared by a.yaml already" {
		t.Errorf("c.yaml: %q", e)
	}
	for _, f := range []string{"d.yaml", "e.yaml~"} {
		if results[f].Error == "" || results[f].Pods != nil {
			t.Errorf("%s: %+v, want an error and no pods", f, results[f])
		}
	}

	// The file a pod runs from keeps it against a file that declares it too.
	desired, results, broken, err = src.scan(context.Background(), func(pod string) string {
		return map[string]string{"web-node1": "c.yaml"}[pod]
	})
	if err != nil {
		t.Fatal(err)
	}
	if desired["web-node1"].File != "c.yaml" || !broken["a.yaml"] || broken["c.yaml"] || results["a.yaml"].Error != "pod web-node1 is declared by c.yaml already" {
		t.Errorf("with web-node1 running from c.yaml: desired from %s, broken %v, a.yaml %+v", desired["web-node1"].File, broken, results["a.yaml"])
	}

	// A changed file is loaded again; a removed one is forgotten.
	if err := os.WriteFile(filepath.Join(dir, "b.json"), []byte(fmt.Sprintf(pod, "db2")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "d.yaml")); err != nil {
		t.Fatal(err)
	}
	desired, results, _, _ = src.scan(context.Background(), func(string) string { return "" })
	if _, ok := desired["db2-node1"]; !ok || len(results) != 4 {
		t.Errorf("after changing b.json and removing d.yaml: desired %v, results %v", desired, results)
	}
}

func TestNotRunning(t *testing.T) {
	running := podlife.ContainerState{Running: &podlife.StateRunning{}}
	exited := podlife.ContainerState{Terminated: &podlife.StateTerminated{ExitCode: 1}}
	status := func(phase podlife.Phase, states ...podlife.ContainerState) podlife.PodStatus {
		st := podlife.PodStatus{Phase: phase}
		for _, s := range states {
			st.ContainerStatuses = append(st.ContainerStatuses, podlife.ContainerStatus{Name: "c", State: s})
		}
		return st
	}
	always, never := podlife.PodSpec{}, podlife.PodSpec{RestartPolicy: podlife.RestartNever}
	for _, tc := range []struct {
		name string
		st   podlife.PodStatus
		spec podlife.PodSpec
		want bool
	}{
		{"running", status(podlife.PhaseRunning, running, running), always, false},
		{"start interrupted", podlife.PodStatus{Phase: podlife.PhaseFailed, Reason: reasons.StartInterrupted}, never, true},
		{"stopped", podlife.PodStatus{Phase: podlife.PhaseRunning, Stopping: true}, always, true},
		{"ended, Always", status(podlife.PhaseSucceeded), always, true},
		{"ended, Never: a finished job stays", status(podlife.PhaseSucceeded), never, false},
		{"a container exited, Always: restarted by the adopter", status(podlife.PhaseRunning, running, exited), always, false},
	} {
		if got := notRunning(tc.st, tc.spec); (got != "") != tc.want {
			t.Errorf("%s: notRunning = %q, want replaced %v", tc.name, got, tc.want)
		}
	}
}
