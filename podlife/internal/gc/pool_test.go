package gc

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/podlife/podlife/podlife/internal/layout"
	"github.com/podlife/podlife/podlife/internal/poddir"
)

// The warm pool: a member whose process died (its lock free) is removed and its UID left
// unknown; a live member (its lock held) is kept and its UID known; a taken member's link is
// removed once its pod's directory is gone.
func TestCollectPool(t *testing.T) {
	c := newCollector(t, &fakeTasks{leases: map[string]map[string]string{}})
	pool := layout.PoolDir(c.StateDir)
	member := func(id, uid string) string {
		dir := filepath.Join(pool, id)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := poddir.WriteJSON(filepath.Join(dir, layout.PoolMemberFile), map[string]string{"uid": uid}); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dead := member("mdead", "dead-uid")
	live := member("mlive", "live-uid")
	lock, err := poddir.LockAdoption(live)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := os.MkdirAll(filepath.Join(c.StateDir, "pods", "here"), 0o700); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"mgone": "gone", "mhere": "here"} {
		if err := os.Symlink(filepath.Join("..", "pods", target), filepath.Join(pool, link)); err != nil {
			t.Fatal(err)
		}
	}
	known := map[string]bool{}
	if n := c.collectPool(context.Background(), known); n != 0 {
		t.Errorf("collectPool: %d unreadable", n)
	}
	if _, err := os.Stat(dead); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the dead member: %v, want it removed", err)
	}
	if _, err := os.Stat(live); err != nil || !known["live-uid"] || known["dead-uid"] {
		t.Errorf("the live member: %v, known %v; want it kept and known, the dead one not", err, known)
	}
	if _, err := os.Lstat(filepath.Join(pool, "mgone")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("dangling link: %v, want it removed", err)
	}
	if _, err := os.Lstat(filepath.Join(pool, "mhere")); err != nil {
		t.Errorf("link to a live pod: %v, want it kept", err)
	}
}
