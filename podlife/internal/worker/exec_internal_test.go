package worker

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
	. "github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/eventbus"
	"github.com/podlife/podlife/podlife/internal/worker/goroutines"
	"github.com/podlife/podlife/podlife/internal/worker/lifecycle"
	"github.com/podlife/podlife/podlife/internal/worker/podsandbox"
)

// hookTestContainer is a container of a pod with no runtime, enough to run hooks.
func hookTestContainer() *Container {
	p := &Worker{name: "p", log: slog.New(slog.DiscardHandler), events: eventbus.New(nil), goroutines: goroutines.NewGroup()}
	p.sandbox = podsandbox.New("", "", "", "", nil, podNet{p})
	return &Container{pod: p, spec: &ContainerSpec{Name: "c"}}
}

// runHook returns what a hook returns; a hook that ignores its context is abandoned shortly
// after the context ends (its goroutine left to finish), with a Warning event naming the hook.
func TestRunHookAbandons(t *testing.T) {
	t.Run("returns", func(t *testing.T) {
		c := hookTestContainer()
		want := errors.New("boom")
		err := c.runHook(context.Background(), hook.HandlerFunc(func(context.Context, hook.Target) error { return want }), "PostStart")
		if !errors.Is(err, want) {
			t.Errorf("runHook: %v, want %v", err, want)
		}
		if es := c.pod.Events(); len(es) != 0 {
			t.Errorf("events %v, want none", es)
		}
	})
	t.Run("honours ctx", func(t *testing.T) {
		c := hookTestContainer()
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		err := c.runHook(ctx, hook.HandlerFunc(func(ctx context.Context, _ hook.Target) error {
			<-ctx.Done()
			return ctx.Err()
		}), "PreStop")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("runHook: %v, want the context's error", err)
		}
		if es := c.pod.Events(); len(es) != 0 {
			t.Errorf("events %v, want none (the hook returned)", es)
		}
	})
	t.Run("ignores ctx", func(t *testing.T) {
		c := hookTestContainer()
		release, returned := make(chan struct{}), make(chan struct{})
		const d = 100 * time.Millisecond
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		t0 := time.Now()
		err := c.runHook(ctx, hook.HandlerFunc(func(context.Context, hook.Target) error {
			defer close(returned)
			<-release
			return nil
		}), "PreStop")
		took := time.Since(t0)
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "abandoned") {
			t.Errorf("runHook: %v, want an abandoned error wrapping the deadline", err)
		}
		if took < d+lifecycle.Settle || took > d+lifecycle.Settle+5*time.Second {
			t.Errorf("runHook took %v, want about %v", took, d+lifecycle.Settle)
		}
		es := c.pod.Events()
		if len(es) != 1 || es[0].Type != EventWarning || es[0].Reason != ReasonFailedPreStopHook ||
			!strings.Contains(es[0].Message, "PreStopHook (func) abandoned") || !strings.Contains(es[0].Message, "grace period") {
			t.Errorf("events %v, want one Warning saying the preStop func hook was abandoned at the grace period", es)
		}
		if live, abandoned := c.pod.goroutines.Counts(); len(live) != 0 || abandoned[gHook] != 1 {
			t.Errorf("goroutines: live %v, abandoned %v; want the Go hook abandoned, nothing else", live, abandoned)
		}
		close(release)
		select {
		case <-returned:
		case <-time.After(5 * time.Second):
			t.Errorf("the abandoned hook's goroutine did not finish once released")
		}
	})
}
