package tasks

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/pkg/cio"
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
