package podlife

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/pkg/cio"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife/internal/eventbus"
)

// fakeIO is a cio.IO whose copy ends when done is closed.
type fakeIO struct{ done chan struct{} }

func (f *fakeIO) Config() cio.Config { return cio.Config{} }
func (f *fakeIO) Cancel()            {}
func (f *fakeIO) Wait()              { <-f.done }
func (f *fakeIO) Close() error       { return nil }

// waitIO returns when the output copy ends, when the output stayed idle for the bound (a
// background process holds it open), or when ctx ends; output still flowing keeps it waiting.
func TestWaitIOBounded(t *testing.T) {
	const idle = 300 * time.Millisecond
	t.Run("copy ends", func(t *testing.T) {
		f := &fakeIO{done: make(chan struct{})}
		close(f.done)
		t0 := time.Now()
		waitIO(context.Background(), f, &ioActivity{}, time.Hour)
		if d := time.Since(t0); d > 5*time.Second {
			t.Errorf("waitIO took %v after the copy ended", d)
		}
	})
	t.Run("idle output", func(t *testing.T) {
		f := &fakeIO{done: make(chan struct{})}
		defer close(f.done)
		t0 := time.Now()
		waitIO(context.Background(), f, &ioActivity{}, idle)
		if d := time.Since(t0); d < idle || d > idle+5*time.Second {
			t.Errorf("waitIO took %v with idle output, want about %v", d, idle)
		}
	})
	t.Run("ctx ends", func(t *testing.T) {
		f := &fakeIO{done: make(chan struct{})}
		defer close(f.done)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		t0 := time.Now()
		waitIO(ctx, f, &ioActivity{}, time.Hour)
		if d := time.Since(t0); d > 5*time.Second {
			t.Errorf("waitIO took %v after ctx ended", d)
		}
	})
	t.Run("output flowing", func(t *testing.T) {
		f := &fakeIO{done: make(chan struct{})}
		defer close(f.done)
		act := &ioActivity{}
		w := &activityWriter{w: io.Discard, a: act}
		const flow = 1500 * time.Millisecond
		stop := make(chan struct{})
		go func() {
			tick := time.NewTicker(idle / 4)
			defer tick.Stop()
			end := time.After(flow)
			for {
				select {
				case <-tick.C:
					_, _ = w.Write([]byte("x"))
				case <-end:
					close(stop)
					return
				}
			}
		}()
		t0 := time.Now()
		waitIO(context.Background(), f, act, idle)
		<-stop
		if d := time.Since(t0); d < flow {
			t.Errorf("waitIO returned after %v while output was still written (for %v)", d, flow)
		}
	})
	t.Run("slow writer", func(t *testing.T) {
		f := &fakeIO{done: make(chan struct{})}
		defer close(f.done)
		act := &ioActivity{}
		const block = 1 * time.Second
		w := &activityWriter{w: writerFunc(func(p []byte) (int, error) { time.Sleep(block); return len(p), nil }), a: act}
		go func() { _, _ = w.Write([]byte("x")) }()
		time.Sleep(10 * time.Millisecond)
		t0 := time.Now()
		waitIO(context.Background(), f, act, idle)
		if d := time.Since(t0); d < block-100*time.Millisecond {
			t.Errorf("waitIO returned after %v while a write was blocked (for %v)", d, block)
		}
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// hookTestContainer is a container of a pod with no runtime, enough to run hooks.
func hookTestContainer() *Container {
	p := &podWorker{name: "p", log: slog.New(slog.DiscardHandler), events: eventbus.New(nil)}
	p.sandbox = &podSandbox{pod: p}
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
		if took < d+hookSettle || took > d+hookSettle+5*time.Second {
			t.Errorf("runHook took %v, want about %v", took, d+hookSettle)
		}
		es := c.pod.Events()
		if len(es) != 1 || es[0].Type != EventWarning || es[0].Reason != ReasonFailedPreStopHook ||
			!strings.Contains(es[0].Message, "PreStopHook (func) abandoned") || !strings.Contains(es[0].Message, "grace period") {
			t.Errorf("events %v, want one Warning saying the preStop func hook was abandoned at the grace period", es)
		}
		close(release)
		select {
		case <-returned:
		case <-time.After(5 * time.Second):
			t.Errorf("the abandoned hook's goroutine did not finish once released")
		}
	})
}
