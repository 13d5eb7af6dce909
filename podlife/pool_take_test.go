package podlife_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWarmPoolExplicitHostname: a pod whose hostname is explicit (part of the pool's key) is
// taken with the member's /etc files and UTS hostname, which are already its own.
func TestWarmPoolExplicitHostname(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	marks := t.TempDir()
	spec := poolSpec(marks)
	spec.Hostname = "pinned"
	if err := h.rt.Prewarm(ctx, spec, 1); err != nil {
		t.Fatalf("Prewarm: %v", err)
	}
	spec.Name = "pinned-a"
	pod, err := h.rt.Run(ctx, spec)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !fromPool(pod) {
		t.Errorf("not started from the pool: %+v", pod.Events())
	}
	for _, l := range waitStamped(t, filepath.Join(marks, "pinned.log"), "first", "second") {
		if f := strings.Fields(l.what); len(f) != 2 || f[0] != "pinned" || f[1] != "pinned" {
			t.Errorf("%s saw hostname, /etc/hostname %q; want pinned", l.who, l.what)
		}
	}
	if err := pod.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.rt.Prewarm(ctx, spec, 0); err != nil {
		t.Fatal(err)
	}
}
