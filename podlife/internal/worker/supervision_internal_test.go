package worker

import (
	"testing"
	"time"
)

// supervision.json: a change is on disk when update returns, and a new store reads it back.
func TestSupervisionStoreRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s := newSupervisionStore(dir)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := s.update("web", func(c *ContainerSupervision) {
		c.PostStart, c.Started, c.BackoffDelay, c.BackoffUpdated = "id1", "id0", 20*time.Second, at
	}); err != nil {
		t.Fatal(err)
	}
	again := newSupervisionStore(dir)
	if err := again.load(); err != nil {
		t.Fatal(err)
	}
	got := again.get("web")
	if got.PostStart != "id1" || got.Started != "id0" || got.BackoffDelay != 20*time.Second || !got.BackoffUpdated.Equal(at) {
		t.Errorf("read back %+v", got)
	}
	if err := again.load(); err != nil || again.get("other") != (ContainerSupervision{}) {
		t.Errorf("unknown container: %+v, %v", again.get("other"), err)
	}
}
