package podlife

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podlife/podlife/podlife/internal/api"
)

// A name given to the cross-process API is refused before it reaches a path: "../../victim"
// does not name a directory holding a pod.json outside the state directory's pods.
func TestNamesRefused(t *testing.T) {
	r, _, _ := newFakeRuntime(t)
	ctx := context.Background()
	victim, err := os.MkdirTemp("", "plf-victim-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(victim)
	record := []byte(`{"name":"victim","uid":"u1","ownerPID":1}`)
	for _, f := range []string{recordFile, "logs/app/0.log", "keep"} {
		path := filepath.Join(victim, f)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, record, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// From StateDir/pods, this reaches the victim.
	traversal := "../../" + filepath.Base(victim)
	if got := filepath.Join(r.cfg.StateDir, "pods", traversal); got != victim {
		t.Fatalf("test setup: %s does not reach %s", got, victim)
	}

	names := []string{traversal, "../" + filepath.Base(victim), "a/b", "", ".", "..", "Upper", "x\x00", "-x", strings.Repeat("a", 64), "a,b==c"}
	calls := map[string]func(name string) error{
		"LookupPod": func(n string) error { _, err := r.LookupPod(ctx, n); return err },
		"Pod":       func(n string) error { _, err := r.Pod(n); return err },
		"Exec container": func(n string) error {
			_, err := (&Pod{rt: r, name: "ok"}).Exec(ctx, n, []string{"true"}, ExecIO{})
			return err
		},
	}
	for call, f := range calls {
		for _, name := range names {
			err := f(name)
			var ne *api.NameError
			if !errors.Is(err, ErrInvalidSpec) || !errors.As(err, &ne) || ne.Name != name {
				t.Errorf("%s(%q) = %v, want a *NameError for that name (ErrInvalidSpec)", call, name, err)
			}
		}
	}
	rec := PodRecord{Name: "victim", Dir: filepath.Join(victim, "..", filepath.Base(victim))}
	for _, name := range []string{"../app", "../../" + filepath.Base(victim) + "/logs/app", "app/..", ""} {
		if got := rec.logFiles(name); got != nil {
			t.Errorf("logFiles(%q) = %v, want none", name, got)
		}
	}
	if got := rec.logFiles("app"); len(got) != 1 {
		t.Errorf("logFiles(app) = %v, want the one file", got)
	}
	for _, f := range []string{recordFile, "logs/app/0.log", "keep"} {
		if b, err := os.ReadFile(filepath.Join(victim, f)); err != nil || string(b) != string(record) {
			t.Errorf("victim's %s after the calls: %q, %v; want it untouched", f, b, err)
		}
	}
	// A valid name that names no pod is not found, not refused.
	if _, err := r.LookupPod(ctx, "nothing-here"); !errors.Is(err, ErrNotFound) {
		t.Errorf("LookupPod(nothing-here) = %v, want ErrNotFound", err)
	}
}
