package podlife

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podlife/podlife/podlife/internal/poddir"
	"github.com/podlife/podlife/podlife/internal/sandbox"
)

// A CNI DEL that fails in the stop and again in Remove fails Remove, and the pod's directory
// stays with its record of the attachment (sandbox.json) and pod.json, for Pod.Remove to retry;
// the name cannot be reused meanwhile.
func TestFakeRemoveKeepsRecordWhenDetachFails(t *testing.T) {
	ctx := testCtx(t)
	r, f, _ := newFakeRuntime(t)
	p, err := r.Start(ctx, PodSpec{Name: "net", Containers: []ContainerSpec{{Name: "a", Image: fakeImage}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WaitStarted(ctx); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.netRemoveFails = 2
	f.mu.Unlock()
	err = p.Remove(ctx)
	if err == nil || !strings.Contains(err.Error(), "network detach") || !strings.Contains(err.Error(), "fake CNI DEL failure") {
		t.Fatalf("Remove = %v, want the CNI DEL failure", err)
	}
	if n := strings.Count(strings.Join(f.history(), "\n"), "network remove fails"); n != 2 {
		t.Errorf("%d failed network removes, want 2 (the stop's and Remove's retry); calls %q", n, f.history())
	}
	var sb sandbox.Record
	if err := poddir.ReadJSON(filepath.Join(p.w.Sandbox().Dir(), "sandbox.json"), &sb); err != nil || sb.Network != "attached" || sb.UID != p.w.UID() {
		t.Errorf("sandbox.json after the failed remove: %+v, %v; want the attachment kept", sb, err)
	}
	var rec podRecord
	if err := poddir.ReadJSON(filepath.Join(p.w.Sandbox().Dir(), recordFile), &rec); err != nil || rec.UID != p.w.UID() {
		t.Errorf("pod.json after the failed remove: %+v, %v", rec, err)
	}
	if _, err := r.Start(ctx, PodSpec{Name: "net", Containers: []ContainerSpec{{Name: "a", Image: fakeImage}}}); !errors.Is(err, ErrAlreadyExists) {
		t.Errorf("Start of the name while its remains wait = %v, want ErrAlreadyExists", err)
	}
	// The test's cleanup: what a Pod.Remove retry does without containerd.
	if err := os.RemoveAll(p.w.Sandbox().Dir()); err != nil {
		t.Fatal(err)
	}
}

// A CNI DEL that fails in the stop only is retried by Remove, which then succeeds.
func TestFakeRemoveRetriesDetach(t *testing.T) {
	ctx := testCtx(t)
	r, f, _ := newFakeRuntime(t)
	p, err := r.Start(ctx, PodSpec{Name: "net", Containers: []ContainerSpec{{Name: "a", Image: fakeImage}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WaitStarted(ctx); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.netRemoveFails = 1
	f.mu.Unlock()
	if err := p.Stop(ctx); err == nil || !strings.Contains(err.Error(), "fake CNI DEL failure") {
		t.Errorf("Stop = %v, want the CNI DEL failure", err)
	}
	if err := p.Remove(ctx); err != nil {
		t.Fatalf("Remove = %v, want the retried CNI DEL to succeed", err)
	}
	calls := f.history()
	before(t, calls, "network remove fails", "network remove")
	if _, err := os.Stat(p.w.Sandbox().Dir()); !os.IsNotExist(err) {
		t.Errorf("pod dir after Remove: %v", err)
	}
}

// Removing a pod drops its containers' crash-loop back-off entries, and only its own: a
// long-lived Runtime does not keep one per container it ever restarted.
func TestFakeRemoveDropsBackoff(t *testing.T) {
	ctx := testCtx(t)
	r, f, _ := newFakeRuntime(t)
	// The fake names processes by container name: the pods' containers are named apart.
	run := func(name string, containers ...string) *podWorker {
		spec := PodSpec{Name: name}
		for _, c := range containers {
			spec.Containers = append(spec.Containers, ContainerSpec{Name: c, Image: fakeImage})
		}
		p, err := r.Run(ctx, spec)
		if err != nil {
			t.Fatalf("Run %s: %v", name, err)
		}
		return p.w
	}
	gone, kept := run("gone", "a", "b"), run("kept", "c")
	// Every container crashes once: restarted at once, with a back-off entry.
	for _, c := range []string{"a", "b", "c"} {
		f.exit(t, c, 1)
		f.waitCall(t, "start "+c+"#1")
	}
	if n := r.backoff.Len(); n != 3 {
		t.Fatalf("%d back-off entries after 3 crashes, want 3", n)
	}
	for _, c := range gone.Spec().Containers {
		if r.backoff.Delay(gone.BackoffKey(c.Name)) == 0 {
			t.Fatalf("no back-off entry for %s of gone", c.Name)
		}
	}
	if err := gone.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if n := r.backoff.Len(); n != 1 {
		t.Errorf("%d back-off entries after Remove, want 1 (kept's)", n)
	}
	if r.backoff.Delay(kept.BackoffKey("c")) == 0 {
		t.Errorf("kept's back-off entry was dropped with gone's")
	}
}
