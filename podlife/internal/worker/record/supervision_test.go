package record

import (
	"testing"
	"time"
)

// supervision.json: a change is on disk when Update returns, and LoadSupervision reads it back.
func TestSupervisionRoundTrip(t *testing.T) {
	dir := t.TempDir()
	empty, err := LoadSupervision(dir)
	if err != nil || len(empty.Containers) != 0 || empty.Stop != nil {
		t.Fatalf("no file: %+v, %v", empty, err)
	}
	w := NewSupervisionWriter(dir, empty)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := w.Update("web", func(c *ContainerSupervision) {
		c.PostStart, c.Started, c.BackoffDelay, c.BackoffUpdated = "id1", "id0", 20*time.Second, at
	}); err != nil {
		t.Fatal(err)
	}
	again, err := LoadSupervision(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := again.Containers["web"]
	if got.PostStart != "id1" || got.Started != "id0" || got.BackoffDelay != 20*time.Second || !got.BackoffUpdated.Equal(at) {
		t.Errorf("read back %+v", got)
	}
	if again.Containers["other"] != (ContainerSupervision{}) {
		t.Errorf("unknown container: %+v", again.Containers["other"])
	}
	// A writer made from what was read keeps it, and leaves the value read unchanged.
	w2 := NewSupervisionWriter(dir, again)
	if err := w2.BeginStop(StopIntent{Since: at, Grace: time.Minute, Hooks: true}); err != nil {
		t.Fatal(err)
	}
	if err := w2.BeginStop(StopIntent{Since: at.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := w2.Update("db", func(c *ContainerSupervision) { c.Started = "id2" }); err != nil {
		t.Fatal(err)
	}
	if _, ok := again.Containers["db"]; ok || again.Stop != nil {
		t.Errorf("the value read changed: %+v", again)
	}
	last, err := LoadSupervision(dir)
	if err != nil {
		t.Fatal(err)
	}
	if last.Containers["web"] != got || last.Containers["db"].Started != "id2" || last.Stop == nil || !last.Stop.Since.Equal(at) || !last.Stop.Hooks {
		t.Errorf("read back %+v (stop %+v)", last, last.Stop)
	}
	if left := last.Stop.Remaining(at.Add(40 * time.Second)); left != 20*time.Second {
		t.Errorf("remaining %v, want 20s", left)
	}
}
