package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife/internal/api"
)

// Start's steps, in order, for each way it can go.
func TestStart(t *testing.T) {
	boom := errors.New("boom")
	run := func(mod func(*Instance, *[]string)) (error, []string) {
		var steps []string
		i := Instance{Pod: "p", Container: "c", ID: "id",
			Grant: func() (func(context.Context) error, bool) {
				steps = append(steps, "grant")
				return func(context.Context) error { steps = append(steps, "start"); return nil }, false
			},
			Failed:          func(err error) { steps = append(steps, "failed: "+err.Error()) },
			Running:         func() { steps = append(steps, "running") },
			Supervise:       func(id string) { steps = append(steps, fmt.Sprint("supervise ", id == "id")) },
			PostStartFailed: func(err error) error { steps = append(steps, "poststart failed"); return err },
			Probes:          func() { steps = append(steps, "probes") },
			Emit:            func(_ api.EventType, r api.Reason, _ string) { steps = append(steps, "event "+string(r)) },
		}
		mod(&i, &steps)
		return Start(context.Background(), i), steps
	}
	for _, tc := range []struct {
		name    string
		mod     func(*Instance, *[]string)
		wantErr error
		want    []string
	}{
		{"no hook", func(*Instance, *[]string) {}, nil, []string{"grant", "start", "running", "probes"}},
		{"hook", func(i *Instance, s *[]string) {
			i.PostStart = func(context.Context) error { *s = append(*s, "hook"); return nil }
		}, nil, []string{"grant", "start", "running", "supervise true", "hook", "supervise false", "event PostStartHookCompleted", "probes"}},
		{"hook fails", func(i *Instance, s *[]string) {
			i.PostStart = func(context.Context) error { *s = append(*s, "hook"); return boom }
		}, boom, []string{"grant", "start", "running", "supervise true", "hook", "supervise false", "poststart failed"}},
		{"stopping", func(i *Instance, s *[]string) {
			i.Grant = func() (func(context.Context) error, bool) { *s = append(*s, "grant"); return nil, true }
		}, context.Canceled, []string{"grant"}},
		{"start fails", func(i *Instance, s *[]string) {
			i.Grant = func() (func(context.Context) error, bool) {
				return func(context.Context) error { return boom }, false
			}
		}, boom, []string{"failed: boom"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err, steps := run(tc.mod)
			if !errors.Is(err, tc.wantErr) || tc.wantErr == nil && err != nil {
				t.Errorf("err %v, want %v", err, tc.wantErr)
			}
			if !slices.Equal(steps, tc.want) {
				t.Errorf("steps %q, want %q", steps, tc.want)
			}
		})
	}
}

// A handler that ignores its context is abandoned Settle after the context ends, with a
// Warning event naming the hook; one that returns is not.
func TestRunAbandons(t *testing.T) {
	var warned []string
	abandoned := false
	release := make(chan struct{})
	defer close(release)
	h := Hook{Kind: PostStart, Timeout: 50 * time.Millisecond, Log: slog.New(slog.DiscardHandler),
		Handler: hook.HandlerFunc(func(context.Context, hook.Target) error { <-release; return nil }),
		Go: func(fn func()) func() {
			go fn()
			return func() { abandoned = true }
		},
		Warn: func(r api.Reason, msg string) { warned = append(warned, string(r)+": "+msg) },
	}
	err := Run(context.Background(), h)
	if !errors.Is(err, context.DeadlineExceeded) || !abandoned {
		t.Errorf("err %v, abandoned %v: want the deadline, abandoned", err, abandoned)
	}
	if len(warned) != 1 || !strings.HasPrefix(warned[0], "FailedPostStartHook: PostStartHook (func) abandoned") ||
		!strings.Contains(warned[0], "hookTimeout") {
		t.Errorf("warnings %q, want one FailedPostStartHook saying its hookTimeout is over", warned)
	}
}

// The gate: Idle is nil with no start in flight, else closed when the last one ends.
func TestGate(t *testing.T) {
	var g Gate
	if g.Idle() != nil {
		t.Fatal("Idle with nothing in flight: want nil")
	}
	g.Begin()
	g.Begin()
	idle := g.Idle()
	if idle == nil || !g.Awaited() {
		t.Fatal("Idle with starts in flight: want a channel, awaited")
	}
	g.End()
	select {
	case <-idle:
		t.Fatal("closed with a start still in flight")
	default:
	}
	g.End()
	select {
	case <-idle:
	default:
		t.Fatal("not closed once no start is in flight")
	}
	if g.Awaited() || g.Idle() != nil {
		t.Fatal("after: want not awaited, Idle nil")
	}
}

type starter struct{}

func (starter) Start(context.Context) error { return nil }

// Grant gives no start while stopping or without a task, else the task's start, counted; Await
// returns once the starts granted before it ended, or once done is closed.
func TestGateGrantAwait(t *testing.T) {
	var g Gate
	direct := func(f func()) bool { f(); return true } // the test is the loop
	if g.Grant(true, starter{}) != nil || g.Grant(false, nil) != nil || g.Idle() != nil {
		t.Fatal("Grant while stopping or without a task: want no start, none counted")
	}
	g.Await(direct, nil) // nothing in flight: returns at once
	if g.Grant(false, starter{}) == nil || g.Idle() == nil {
		t.Fatal("Grant: want the task's start, counted")
	}
	done := make(chan struct{})
	close(done)
	g.Await(direct, done) // the loop ended: returns
	// Await off the loop: the loop is a mutex here, and asked says Await has read the gate.
	var mu sync.Mutex
	asked, awaited := make(chan struct{}), make(chan struct{})
	loop := func(f func()) bool { mu.Lock(); defer mu.Unlock(); f(); close(asked); return true }
	go func() { g.Await(loop, nil); close(awaited) }()
	<-asked
	mu.Lock()
	defer mu.Unlock()
	g.End()
	select {
	case <-awaited:
	case <-time.After(10 * time.Second):
		t.Fatal("Await did not return once the start ended")
	}
}
