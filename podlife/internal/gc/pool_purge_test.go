package gc

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/podlife/podlife/podlife/internal/layout"
	"github.com/podlife/podlife/podlife/internal/poddir"
)

// shimEndingTasks is fakeTasks with a ShimEnder that records the IDs it is given.
type shimEndingTasks struct {
	*fakeTasks
	ended [][]string
}

func (f *shimEndingTasks) EndShims(_ context.Context, ids []string, _ *slog.Logger) {
	f.ended = append(f.ended, slices.Clone(ids))
}

// A member whose process died has its containers deleted by collectPool itself, then the shims
// started for them ended (a create cut by the kill may have left one serving a task containerd
// does not know); a live member's containers, another state dir's and another pod's are not
// touched there.
func TestCollectPoolPurgesDeadMember(t *testing.T) {
	f := &shimEndingTasks{fakeTasks: &fakeTasks{leases: map[string]map[string]string{}}}
	c := newCollector(t, f.fakeTasks)
	c.Tasks = f
	pool := layout.PoolDir(c.StateDir)
	for id, uid := range map[string]string{"mdead": "dead-uid", "mlive": "live-uid"} {
		dir := filepath.Join(pool, id)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := poddir.WriteJSON(filepath.Join(dir, layout.PoolMemberFile), map[string]string{"uid": uid}); err != nil {
			t.Fatal(err)
		}
	}
	lock, err := poddir.LockAdoption(filepath.Join(pool, "mlive"))
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	f.ctrs = []Container{
		{ID: "dead-a", Labels: labels("mdead", "dead-uid", c.StateDir)},
		{ID: "dead-b", Labels: labels("mdead", "dead-uid", c.StateDir)},
		{ID: "other-dir", Labels: labels("mdead", "dead-uid", "/elsewhere")},
		{ID: "live-a", Labels: labels("mlive", "live-uid", c.StateDir)},
		{ID: "pod-a", Labels: labels("web", "pod-uid", c.StateDir)},
	}
	c.collectPool(context.Background(), map[string]bool{})
	want := []string{"dead-a", "dead-b"}
	if !slices.Equal(f.purged, want) {
		t.Errorf("purged %q, want %q", f.purged, want)
	}
	if len(f.ended) != 1 || !slices.Equal(f.ended[0], want) {
		t.Errorf("shims ended for %q, want once for %q", f.ended, want)
	}
	if !slices.Equal(f.shimsRm, want) {
		t.Errorf("shim sockets looked at %q, want %q", f.shimsRm, want)
	}
}
