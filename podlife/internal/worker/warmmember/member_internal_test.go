package warmmember

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/poddir"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/podsandbox"
	"github.com/podlife/podlife/podlife/internal/worker/record"
)

// fakeTasks answers LocalImage from digests (name -> digest); the rest of the seam is unused.
type fakeTasks struct {
	tasks.Runtime
	digests map[string]string
}

func (f fakeTasks) LocalImage(_ context.Context, ref string) (tasks.Image, bool, error) {
	d, ok := f.digests[ref]
	return tasks.Image{Name: ref, ID: d}, ok, nil
}

// fakePod is a member's worker: its containers' snapshot, and what Claim made it become.
type fakePod struct {
	Pod
	cs       []Container
	loopDone bool
	wg       sync.WaitGroup
	became   []Identity
}

func (f *fakePod) Go(_ Goroutine, fn func()) { f.wg.Go(fn) }
func (f *fakePod) Containers() ([]Container, tasks.Container, bool) {
	return f.cs, nil, !f.loopDone
}
func (f *fakePod) Become(id Identity) { f.became = append(f.became, id) }

func newTestMember(t *testing.T) (*Member, string) {
	t.Helper()
	stateDir := t.TempDir()
	dir := filepath.Join(stateDir, "pool", "m1")
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o700); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	now := time.Date(2026, 11, 27, 7, 0, 0, 0, time.UTC)
	m := New("m1", time.Now(), Env{StateDir: stateDir, Tasks: fakeTasks{digests: map[string]string{"busybox": "sha256:a"}},
		Sandbox: podsandbox.New(dir, "uid1", "default", "m1", nil, nil), Spec: api.PodSpec{Name: "m1", Hostname: "m1"},
		Log: log, HostLog: log, Now: func() time.Time { return now }})
	return m, stateDir
}

// podsLocked reports whether someone holds the state dir's pods lock.
func podsLocked(t *testing.T, stateDir string) bool {
	t.Helper()
	release, err := poddir.LockPods(stateDir, syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true
	}
	if err != nil {
		t.Fatal(err)
	}
	release()
	return false
}

func TestClaimStale(t *testing.T) {
	created := Container{Name: "app", Image: "busybox", ImageID: "sha256:a", Task: true}
	for _, tc := range []struct {
		name string
		pod  *fakePod
		dead bool
		want string
	}{
		{name: "dead", pod: &fakePod{cs: []Container{created}}, dead: true, want: "a created process is gone"},
		{name: "loop ended", pod: &fakePod{loopDone: true}, want: "its loop ended"},
		{name: "no task", pod: &fakePod{cs: []Container{{Name: "app", Image: "busybox", ImageID: "sha256:a"}}}, want: `container "app" has no task`},
		{name: "image updated", pod: &fakePod{cs: []Container{{Name: "app", Image: "busybox", ImageID: "sha256:old", Task: true}}}, want: "image busybox is now"},
		{name: "image gone", pod: &fakePod{cs: []Container{{Name: "app", Image: "nginx", ImageID: "sha256:n", Task: true}}}, want: "image nginx is now"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, stateDir := newTestMember(t)
			if tc.dead {
				orig, fwd := make(chan ctrd.ExitStatus, 1), make(chan ctrd.ExitStatus, 1)
				orig <- ctrd.ExitStatus{}
				onDead := 0
				m.ForwardExit(orig, fwd, func() { onDead++ })
				if _, ok := <-fwd; !ok || onDead != 1 {
					t.Fatalf("exit forwarded %v, onDead called %d times", ok, onDead)
				}
			}
			_, err := m.Claim(context.Background(), tc.pod, api.PodSpec{Name: "web", Hostname: "m1"}, api.PodSpec{Name: "web"},
				func() error { t.Error("registered a stale member"); return nil })
			if !errors.Is(err, errStale) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Claim: %v, want errStale with %q", err, tc.want)
			}
			if len(tc.pod.became) != 0 {
				t.Error("a stale member became the pod")
			}
			if _, err := os.Stat(filepath.Join(stateDir, "pool", "m1", "logs")); err != nil {
				t.Errorf("the member's directory moved: %v", err)
			}
			if podsLocked(t, stateDir) {
				t.Error("the pods lock is held")
			}
		})
	}
}

func TestClaimAndFirstRecord(t *testing.T) {
	m, stateDir := newTestMember(t)
	pod := &fakePod{cs: []Container{{Name: "app", Image: "busybox", ImageID: "sha256:a", Task: true}}}
	spec := api.PodSpec{Name: "web", Hostname: "m1"} // the member's hostname: no /etc rewrite
	registered := 0
	msg, err := m.Claim(context.Background(), pod, spec, api.PodSpec{Name: "web"}, func() error { registered++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if registered != 1 || !strings.Contains(msg, "member m1") {
		t.Errorf("registered %d times, event %q", registered, msg)
	}
	if len(pod.became) != 1 {
		t.Fatalf("became %d times", len(pod.became))
	}
	id := pod.became[0]
	oldDir, newDir := filepath.Join(stateDir, "pool", "m1"), filepath.Join(stateDir, "pods", "web")
	if id.Spec.Name != "web" || id.Dir != newDir || id.Log == nil || id.Release == nil || !id.Now.Equal(m.env.Now()) {
		t.Errorf("identity %+v", id)
	}
	if got := id.Rebase(filepath.Join(oldDir, "logs", "app.log")); got != filepath.Join(newDir, "logs", "app.log") {
		t.Errorf("rebase of a member's path: %s", got)
	}
	if got := id.Rebase("/var/log/x"); got != "/var/log/x" {
		t.Errorf("rebase of another path: %s", got)
	}
	if _, err := os.Stat(filepath.Join(newDir, "logs")); err != nil {
		t.Errorf("the pod's directory: %v", err)
	}
	if link, err := os.Readlink(oldDir); err != nil || link != filepath.Join("..", "pods", "web") {
		t.Errorf("the member's directory: link %q, %v", link, err)
	}
	if !podsLocked(t, stateDir) {
		t.Error("the pods lock is not held until pod.json is written")
	}
	// The first record is renamed into place and synced meanwhile; later ones as any pod's.
	path := filepath.Join(newDir, "pod.json")
	if err := m.WriteRecord(pod, path, record.Record{Name: "web"}); err != nil {
		t.Fatal(err)
	}
	id.Release()
	if err := m.syncRecord(); err != nil {
		t.Errorf("sync: %v", err)
	}
	if b, err := os.ReadFile(path); err != nil || !strings.Contains(string(b), `"web"`) {
		t.Errorf("pod.json: %s, %v", b, err)
	}
	if err := m.WriteRecord(pod, path, record.Record{Name: "web", OwnerPID: 7}); err != nil || m.recordSynced != nil {
		t.Errorf("second record: %v (a sync pending: %v)", err, m.recordSynced != nil)
	}
	pod.wg.Wait()
	var none *Member
	if err := none.WriteRecord(pod, filepath.Join(t.TempDir(), "pod.json"), record.Record{Name: "cold"}); err != nil {
		t.Errorf("a cold pod's record: %v", err)
	}
}

func TestClaimRegisterFails(t *testing.T) {
	m, stateDir := newTestMember(t)
	pod := &fakePod{cs: []Container{{Name: "app", Image: "busybox", ImageID: "sha256:a", Task: true}}}
	closed := errors.New("closed")
	if _, err := m.Claim(context.Background(), pod, api.PodSpec{Name: "web", Hostname: "m1"}, api.PodSpec{Name: "web"},
		func() error { return closed }); !errors.Is(err, closed) {
		t.Fatalf("Claim: %v", err)
	}
	if podsLocked(t, stateDir) {
		t.Error("the pods lock is still held")
	}
}

func TestTraceDone(t *testing.T) {
	m, _ := newTestMember(t)
	t0 := time.Now().Add(-time.Second) // the steps below ended before the sequence does (now)
	m.trace.begin(t0)
	m.trace.markAt("checks", t0.Add(2*time.Millisecond))
	m.trace.markAt("record synced", t0.Add(9*time.Millisecond))
	pod := &fakePod{cs: []Container{
		{Name: "a", Started: []time.Time{t0.Add(5 * time.Millisecond)}},
		{Name: "b", Started: []time.Time{{}}}, // not started: left out
	}}
	attrs := m.traceDone(pod)
	var steps []string
	for i := 0; i+1 < len(attrs); i += 2 {
		steps = append(steps, attrs[i].(string))
	}
	if got, want := strings.Join(steps, ","), "checks,start a,record synced,sequence done,total"; got != want {
		t.Errorf("steps %s, want %s", got, want)
	}
	if d := attrs[3].(time.Duration); d != 3*time.Millisecond {
		t.Errorf("start a took %v after checks, want 3ms", d)
	}
}
