package restarting_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/podlife/podlife/internal/clock"
	"github.com/podlife/podlife/internal/restart"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/worker/restarting"
)

// fakeCtr is a container whose instances are numbers (0: none); it records the calls.
type fakeCtr struct {
	mu       sync.Mutex
	calls    []string
	cur      int
	attempt  int
	failures int // creates that fail first
}

func (f *fakeCtr) note(format string, args ...any) {
	f.mu.Lock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}

func (f *fakeCtr) Name() string { return "c" }
func (f *fakeCtr) Next() (int, api.ContainerState, int, bool) {
	return f.cur, api.ContainerState{}, f.attempt + 1, true
}
func (f *fakeCtr) Waiting(reason api.Reason, _ string, last *api.StateTerminated) {
	f.note("waiting %s last=%v", reason, last != nil)
}
func (f *fakeCtr) Emit(_ api.EventType, reason api.Reason, _ string) { f.note("event %s", reason) }
func (f *fakeCtr) PersistBackoff()                                   { f.note("persist") }
func (f *fakeCtr) Create(_ context.Context, attempt int) (int, error) {
	if f.failures > 0 {
		f.failures--
		return 0, errors.New("no such image")
	}
	f.note("create %d", attempt)
	return 100 + attempt, nil
}
func (f *fakeCtr) Install(inst, attempt int, _ api.ContainerState) bool {
	f.note("install %d", inst)
	f.cur, f.attempt = inst, attempt
	return true
}
func (f *fakeCtr) Drop(inst int)                           { f.note("drop %d", inst) }
func (f *fakeCtr) Start(_ context.Context, inst int) error { f.note("start %d", inst); return nil }
func (f *fakeCtr) StartFirst(context.Context) error        { f.note("start first"); return nil }

func TestRestart(t *testing.T) {
	t0 := time.Unix(1000, 0)
	clk := clock.NewFake(t0)
	h := restarting.Host{Pod: "p", PodUID: "uid", Clock: clk, Log: slog.New(slog.DiscardHandler),
		Backoff:       restart.New(restart.Config{Initial: 10 * time.Second}, clk),
		Away:          func(context.Context, error) bool { return false },
		WaitConnected: func(context.Context) error { return nil }}
	f := &fakeCtr{cur: 100, failures: 1}
	done := make(chan struct{})
	go func() {
		defer close(done)
		restarting.Restart(context.Background(), h, restarting.Container[int](f), 100, &api.StateTerminated{ExitCode: 1, FinishedAt: t0})
	}()
	// The first restart is at once; its create fails, so the next try waits out 10s.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := clk.BlockUntil(ctx, 1); err != nil {
		t.Fatalf("no back-off timer after a failed create: %v (calls %q)", err, f.calls)
	}
	clk.Advance(10 * time.Second)
	<-done
	want := []string{"persist", "event Failed", "waiting CreateContainerError last=false",
		"waiting CrashLoopBackOff last=true", "event BackOff", "persist",
		"create 1", "install 101", "event Created", "drop 100", "start 101"}
	if !slices.Equal(f.calls, want) {
		t.Fatalf("calls %q, want %q", f.calls, want)
	}

	f.calls = nil
	if err := restarting.Rerun(context.Background(), h, restarting.Container[int](f)); err != nil {
		t.Fatal(err)
	}
	want = []string{"create 2", "install 102", "event Created", "drop 101", "start 102"}
	if !slices.Equal(f.calls, want) {
		t.Fatalf("Rerun: calls %q, want %q", f.calls, want)
	}
	if d, _ := h.Backoff.State(restarting.BackoffKey("uid", "c")); d != 0 {
		t.Errorf("Rerun left the back-off at %v, want it reset", d)
	}
	f.calls, f.cur = nil, 0
	if err := restarting.Rerun(context.Background(), h, restarting.Container[int](f)); err != nil || !slices.Equal(f.calls, []string{"start first"}) {
		t.Fatalf("Rerun of a container never created: %v, calls %q", err, f.calls)
	}
}
