package podsandbox_test

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/internal/shimgroup"
	"github.com/podlife/podlife/podlife/internal/worker/podsandbox"
)

// fakeShims answers for the shim of a group once answering is set.
type fakeShims struct{ answering atomic.Bool }

func (f *fakeShims) ShimAnswers(string) bool              { return f.answering.Load() }
func (f *fakeShims) RemoveStaleShim(string, *slog.Logger) {}

type starter struct {
	name         string
	prepared     chan struct{}
	configFailed bool
}

func newStarter(name string) *starter {
	return &starter{name: name, prepared: make(chan struct{})}
}

func (s *starter) Prepared() <-chan struct{} { return s.prepared }
func (s *starter) ConfigFailed() bool        { return s.configFailed }
func (s *starter) Name() string              { return s.name }

var discard = slog.New(slog.DiscardHandler)

// The pod's shim group: its pause's ID if it has one, else its owner's, none with one shim per
// container, and a group of the shared groups with ShimShared (a pod with a pause keeps its own).
func TestShimGroup(t *testing.T) {
	owner := newStarter("a")
	cfg := podsandbox.ShimConfig{Tasks: &fakeShims{}, Groups: shimgroup.New(2)}
	if g := podsandbox.NewShim(cfg, "uid", owner, "owner-id", "").Group(); g != "owner-id" {
		t.Errorf("one shim per pod: group %q, want the owner's ID", g)
	}
	if g := podsandbox.NewShim(cfg, "uid", owner, "owner-id", "pause-id").Group(); g != "pause-id" {
		t.Errorf("with a pause: group %q, want the pause's ID", g)
	}
	perCtr := cfg
	perCtr.PerContainer = true
	if g := podsandbox.NewShim(perCtr, "uid", owner, "owner-id", "").Group(); g != "" {
		t.Errorf("one shim per container: group %q, want none", g)
	}
	shared := cfg
	shared.Shared = true
	first := podsandbox.NewShim(shared, "uid1", owner, "id1", "")
	second := podsandbox.NewShim(shared, "uid2", owner, "id2", "")
	if !first.Shared() || first.Group() != "id1" || second.Group() != "id1" {
		t.Errorf("shared: groups %q and %q, want both the first pod's owner's ID", first.Group(), second.Group())
	}
	if s := podsandbox.NewShim(shared, "uid3", owner, "id3", "pause-id"); s.Shared() || s.Group() != "pause-id" {
		t.Errorf("shared, with a pause: group %q shared=%v, want the pause's own", s.Group(), s.Shared())
	}
}

// The other containers' NewTasks wait until the owner's has started the pod's shim; an owner
// that failed only for its settings hands the start over to a waiter; one that failed
// otherwise aborts the waiters (ErrShimAborted).
func TestShimStartHandOver(t *testing.T) {
	cfg := func(f *fakeShims) podsandbox.ShimConfig {
		return podsandbox.ShimConfig{Tasks: f, Groups: shimgroup.New(1)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	t.Run("waits for the owner", func(t *testing.T) {
		owner, other := newStarter("a"), newStarter("b")
		s := podsandbox.NewShim(cfg(&fakeShims{}), "uid", owner, "id", "")
		ran := make(chan string, 2)
		otherDone := make(chan error, 1)
		go func() { otherDone <- s.Start(ctx, discard, other, func() error { ran <- "b"; return nil }) }()
		if err := s.Start(ctx, discard, owner, func() error { ran <- "a"; return nil }); err != nil {
			t.Fatal(err)
		}
		close(owner.prepared) // after its NewTask, as the worker's prepare does
		if err := <-otherDone; err != nil {
			t.Fatal(err)
		}
		if first := <-ran; first != "a" {
			t.Errorf("%s's NewTask ran first, want the owner's", first)
		}
	})
	t.Run("hands over", func(t *testing.T) {
		owner, other := newStarter("a"), newStarter("b")
		s := podsandbox.NewShim(cfg(&fakeShims{}), "uid", owner, "id", "")
		owner.configFailed = true
		close(owner.prepared)
		ran := false
		if err := s.Start(ctx, discard, other, func() error { ran = true; return nil }); err != nil || !ran {
			t.Errorf("waiter after a config failure: %v, ran %v; want it to start the shim", err, ran)
		}
	})
	t.Run("aborts", func(t *testing.T) {
		owner, other := newStarter("a"), newStarter("b")
		s := podsandbox.NewShim(cfg(&fakeShims{}), "uid", owner, "id", "")
		close(owner.prepared)
		err := s.Start(ctx, discard, other, func() error { t.Error("the waiter's NewTask ran"); return nil })
		if !errors.Is(err, podsandbox.ErrShimAborted) {
			t.Errorf("waiter after the owner failed: %v, want ErrShimAborted", err)
		}
	})
	t.Run("ends with ctx", func(t *testing.T) {
		owner, other := newStarter("a"), newStarter("b")
		s := podsandbox.NewShim(cfg(&fakeShims{}), "uid", owner, "id", "")
		cctx, ccancel := context.WithCancel(ctx)
		ccancel()
		if err := s.Start(cctx, discard, other, func() error { return nil }); !errors.Is(err, context.Canceled) {
			t.Errorf("waiter with its ctx ended: %v, want context.Canceled", err)
		}
	})
}

// The labels' keys and values are a format: pods started by older versions are found by them.
func TestPodLabels(t *testing.T) {
	l := podsandbox.PodLabels{Pod: "web", UID: "u1", Namespace: "ns", StateDir: "/var/lib/podlife", Labels: map[string]string{"app": "x"}}
	want := map[string]string{
		"app": "x", "podlife.io/pod": "web", "podlife.io/pod-uid": "u1", "podlife.io/state-dir": "/var/lib/podlife",
		"podlife.io/namespace": "ns", "podlife.io/container": "c", "podlife.io/attempt": "0", "podlife.io/kind": "init",
	}
	if got := l.For("c", podsandbox.KindInit); !maps.Equal(got, want) {
		t.Errorf("container labels %v, want %v", got, want)
	}
	want["podlife.io/container"], want["podlife.io/kind"], want["podlife.io/stop-signal"] = "POD", "pause", "9"
	if got := l.Pause(); !maps.Equal(got, want) {
		t.Errorf("pause labels %v, want %v", got, want)
	}
}
