package gc

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/containerd/errdefs"
)

// fakeTasks holds containers and leases and records what is deleted.
type fakeTasks struct {
	mu      sync.Mutex
	ctrs    []Container
	leases  map[string]map[string]string // lease ID -> labels
	purged  []string
	shimsRm []string
}

func (f *fakeTasks) Containers(_ context.Context, key string) ([]Container, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Container
	for _, c := range f.ctrs {
		if _, ok := c.Labels[key]; ok {
			id := c.ID
			c.Purge = func(context.Context) error {
				f.mu.Lock()
				defer f.mu.Unlock()
				f.purged = append(f.purged, id)
				return nil
			}
			out = append(out, c)
		}
	}
	return out, nil
}

func (f *fakeTasks) Leases(_ context.Context, key string) ([]Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Lease
	for id, l := range f.leases {
		if _, ok := l[key]; ok {
			out = append(out, Lease{ID: id, Labels: l})
		}
	}
	return out, nil
}

func (f *fakeTasks) DeleteLease(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.leases[id]; !ok {
		return errdefs.ErrNotFound
	}
	delete(f.leases, id)
	return nil
}

func (f *fakeTasks) RemoveStaleShim(group string, _ *slog.Logger) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.shimsRm = append(f.shimsRm, group)
}

func labels(pod, uid, stateDir string) map[string]string {
	l := map[string]string{labelPod: pod, labelPodUID: uid}
	if stateDir != "" {
		l[labelStateDir] = stateDir
	}
	return l
}

func newCollector(t *testing.T, f *fakeTasks) *Collector {
	dir := t.TempDir()
	return &Collector{
		StateDir: dir, RealDir: func(p string) string { return p }, Namespace: "podlife-gc-test",
		PodCgroup: func(uid string) string { return "/podlife-gc-test/pod" + uid },
		Tasks:     f, Log: slog.New(slog.DiscardHandler),
	}
}

// The containerd part: the containers and lease of a pod of this state dir without a record
// are deleted (and its shim's socket looked at); those of a pod with a record, those of another
// state dir and those without the state-dir label are left alone.
func TestCollectContainerd(t *testing.T) {
	f := &fakeTasks{leases: map[string]map[string]string{}}
	c := newCollector(t, f)
	f.ctrs = []Container{
		{ID: "kept-c", Labels: labels("kept", "kept-uid", c.StateDir)},
		{ID: "orphan-c", Labels: labels("orphan", "orphan-uid", c.StateDir)},
		{ID: "foreign-c", Labels: labels("foreign", "foreign-uid", "/elsewhere")},
		{ID: "old-c", Labels: labels("old", "old-uid", "")},
	}
	f.leases["podlife-kept-uid"] = labels("kept", "kept-uid", c.StateDir)
	f.leases["podlife-orphan-uid"] = labels("orphan", "orphan-uid", c.StateDir)
	f.leases["podlife-foreign-uid"] = labels("foreign", "foreign-uid", "/elsewhere")
	c.collectContainerd(context.Background(), map[string]bool{"kept-uid": true})
	if !slices.Equal(f.purged, []string{"orphan-c"}) || !slices.Equal(f.shimsRm, []string{"orphan-c"}) {
		t.Errorf("purged %q, shim sockets looked at %q; want the orphan's only", f.purged, f.shimsRm)
	}
	_, orphanLeft := f.leases["podlife-orphan-uid"]
	_, keptLeft := f.leases["podlife-kept-uid"]
	_, foreignLeft := f.leases["podlife-foreign-uid"]
	if orphanLeft || !keptLeft || !foreignLeft {
		t.Errorf("leases left: orphan's %v (want false), kept's %v, foreign %v (want true)", orphanLeft, keptLeft, foreignLeft)
	}
}

// Collect: a half-created pod directory (no record) and a .removing- one are removed, a pod
// with a record is kept and its UID known; an unreadable record stops the containerd part.
func TestCollectDirs(t *testing.T) {
	f := &fakeTasks{leases: map[string]map[string]string{}}
	c := newCollector(t, f)
	pods := filepath.Join(c.StateDir, "pods")
	mk := func(name, record string) string {
		dir := filepath.Join(pods, name)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if record != "" {
			if err := os.WriteFile(filepath.Join(dir, recordFile), []byte(record), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	kept := mk("kept", `{"uid":"kept-uid"}`)
	half := mk("half", "")
	removing := mk(".removing-gone", `{"uid":"gone-uid"}`)
	other := mk("Not_A_Pod", "")
	// A warm pool pod's first record cut short by a crash of the host: its namespace pins are
	// files without their mounts (see diedWithHost, TestDiedWithHost).
	torn := mk("torn", `{"uid":"torn-u`)
	if err := os.MkdirAll(filepath.Join(torn, "ns"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(torn, "ns", "net"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	known, unreadable := c.collectDirs(context.Background())
	if !known["kept-uid"] || len(known) != 1 || unreadable != 0 {
		t.Errorf("known %v, unreadable %d", known, unreadable)
	}
	for dir, want := range map[string]bool{kept: true, half: false, removing: false, other: true, torn: false} {
		if _, err := os.Stat(dir); (err == nil) != want {
			t.Errorf("%s: left %v, want %v", dir, err == nil, want)
		}
	}
	mk("broken", `{`) // cut short, but no namespace pinned: no proof its pod died; left alone
	f.ctrs = []Container{{ID: "orphan-c", Labels: labels("orphan", "orphan-uid", c.StateDir)}}
	c.Collect(context.Background())
	if len(f.purged) != 0 {
		t.Errorf("purged %q with a record unreadable", f.purged)
	}
}
