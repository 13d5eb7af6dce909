package podend

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/podlife/podlife/internal/clock"
)

// WaitDeadline fires at start+deadline, follows a deadline set (or shortened) after it began,
// and returns false when the pod stops first.
func TestWaitDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := clock.NewFake(t0)
	deadlines := make(chan *time.Duration, 1)
	cur := func() *time.Duration {
		select {
		case d := <-deadlines:
			deadlines <- d
			return d
		default:
			return nil
		}
	}
	changed, stopped := make(chan struct{}, 1), make(chan struct{})
	done := make(chan bool, 1)
	go func() { done <- WaitDeadline(clk, t0, cur, changed, stopped, nil) }()

	clk.Advance(time.Hour) // no deadline yet: nothing fires
	d := 2 * time.Hour
	deadlines <- &d
	changed <- struct{}{}
	if err := clk.BlockUntil(ctx, 1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
		t.Fatal("due before the deadline")
	default:
	}
	clk.Advance(time.Hour) // t0+2h: due
	select {
	case due := <-done:
		if !due {
			t.Error("WaitDeadline = false at the deadline")
		}
	case <-ctx.Done():
		t.Fatal("WaitDeadline did not return at the deadline")
	}

	close(stopped)
	if WaitDeadline(clk, clk.Now(), func() *time.Duration { return nil }, changed, stopped, nil) {
		t.Error("WaitDeadline of a stopped pod = true")
	}
	past := time.Minute
	if !WaitDeadline(clk, t0, func() *time.Duration { return &past }, nil, nil, nil) {
		t.Error("a deadline already past is not due at once")
	}
}

// Usage measures each disk-backed volume, and each container's logs and writable layer (when
// it has an instance); Watch returns at once without a limit.
func TestStorage(t *testing.T) {
	dir := t.TempDir()
	write := func(path string, n int) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, make([]byte, n), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "volumes", "scratch", "f"), 10000)
	write(filepath.Join(dir, "logs", "app", "0.log"), 10000)
	spec := &PodSpec{
		Volumes:    []Volume{{Name: "scratch", EmptyDir: &EmptyDirVolume{}}, {Name: "mem", EmptyDir: &EmptyDirVolume{Medium: MediumMemory}}},
		Containers: []ContainerSpec{{Name: "app"}, {Name: "other"}},
	}
	s := Storage{
		Spec:       spec,
		VolumeDir:  func(name string) string { return filepath.Join(dir, "volumes", name) },
		Dir:        func() string { return dir },
		Containers: []Container{{Name: "app", ID: func() string { return "id-app" }}, {Name: "other", ID: func() string { return "" }}},
		Layer: func(_ context.Context, id string) (int64, error) {
			if id != "id-app" {
				return 0, errors.New("no such snapshot")
			}
			return 5, nil
		},
	}
	u := s.Usage(context.Background())
	if _, ok := u.Volumes["mem"]; ok || u.Volumes["scratch"] < 10000 {
		t.Errorf("volumes %v: want scratch measured, mem not", u.Volumes)
	}
	if u.Containers["app"] < 10005 || u.Containers["other"] != 0 {
		t.Errorf("containers %v: want app's logs and layer, other 0", u.Containers)
	}
	if _, ok := s.Watch(context.Background(), clock.NewFake(time.Now()), time.Second, nil, nil); ok {
		t.Error("Watch without a limit decided")
	}
}
